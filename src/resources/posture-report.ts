import { internalField } from './common.js';
import type { ResourceDef } from './types.js';

/**
 * What an identity reported of its posture, and the service requests posture refused it, kept in the database by
 * controllers that share one (src/controller/cluster/posture-reports.ts), so that any of them evaluates what the
 * identity reported to another. Its id is the identity's. A controller alone on its database keeps both in memory.
 *
 * No route serves it (`api: 'client'` and no operations keep it out of the management resources' contract test).
 */
export const postureReport: ResourceDef = {
  name: 'posture-report',
  plural: 'posture-reports',
  label: 'posture report',
  api: 'client',
  operations: [],
  table: 'posture_reports',
  description: "An identity's reported posture and refused service requests",
  fields: {
    data: internalField({ kind: 'string' }, 'The reported posture (JSON)'),
    failures: internalField({ kind: 'string' }, 'The latest service requests posture refused (JSON)'),
  },
};
