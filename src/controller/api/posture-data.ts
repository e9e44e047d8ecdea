import { resource } from '../../resources/index.js';
import type { Runtime } from '../runtime.js';
import type { Route } from '../server/types.js';

const identity = resource('identity');

/** Go's zero time, as OpenZiti serves a time that was never set. */
const NEVER = '0001-01-01T00:00:00.000Z';

/** A piece of posture data nobody reported: OpenZiti's zero values. */
const unreported = { postureCheckId: '', timedOut: false, lastUpdatedAt: NEVER };

/**
 * An identity's posture: the data its clients last reported (OS, MAC addresses, domain, processes, per API session
 * MFA state) and the service requests posture checks refused. Clients report posture through the client API's
 * posture responses, which this controller does not take yet (docs/controller.md): so every identity's posture
 * data is what OpenZiti serves for one that never reported (zero values), and no request has been refused on
 * posture. The routes answer that truthfully rather than 404, so consoles and scripts can rely on them.
 */
export function postureDataRoutes(rt: Runtime): Route[] {
  const exists = async (id: string) => (await rt.store.repoFor(identity).get(id)).id;
  return [
    {
      method: 'GET',
      path: '/identities/{id}/posture-data',
      api: 'management',
      access: 'admin',
      handler: async (ctx) => {
        await exists(ctx.params.id);
        return {
          data: {
            os: { ...unreported, type: '', version: '', build: '' },
            mac: { ...unreported, addresses: [] },
            domain: { ...unreported, domain: '' },
            processes: [],
            apiSessionPostureData: {},
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/identities/{id}/failed-service-requests',
      api: 'management',
      access: 'admin',
      handler: async (ctx) => {
        await exists(ctx.params.id);
        return { data: [] };
      },
    },
  ];
}
