import type { Consequences } from './behaviour.js';
import { tracesOf } from './traces.js';

/**
 * What the controller keeps in memory per identity (reported posture, refused service requests, the service update
 * stamp, a trace, failed logins) goes when the identity is deleted, by whichever route: kept, it would grow with
 * every identity ever made, and a new identity given the same id would inherit it.
 */
export const consequences: Consequences = {
  phase: 'identity-memory',
  hooks: {
    identity: {
      async afterDelete(rt, row) {
        await rt.posture.forgetIdentity(row.id);
        await rt.serviceUpdates.forget(row.id);
        tracesOf(rt).delete(row.id);
        await rt.loginThrottle.forget(row.id);
      },
    },
  },
};
