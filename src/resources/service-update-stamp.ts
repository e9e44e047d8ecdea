import { internalField } from './common.js';
import type { ResourceDef } from './types.js';

/**
 * When what an identity sees through the client API last changed (the service update check), kept in the database
 * by controllers that share one (src/controller/cluster/service-update-stamps.ts), so that a change written through
 * any of them moves the check on every one. Its id is the identity's, or `*` for a change every identity sees. A
 * controller alone on its database keeps the stamps in memory instead.
 *
 * No route serves it (`api: 'client'` and no operations keep it out of the management resources' contract test).
 */
export const serviceUpdateStamp: ResourceDef = {
  name: 'service-update-stamp',
  plural: 'service-update-stamps',
  label: 'service update stamp',
  api: 'client',
  operations: [],
  table: 'service_update_stamps',
  description: 'When what an identity sees through the client API last changed',
  fields: {
    changedAt: internalField({ kind: 'integer' }, 'When it last changed (Unix milliseconds)'),
  },
};
