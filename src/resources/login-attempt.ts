import { internalField } from './common.js';
import type { ResourceDef } from './types.js';

/**
 * Failed logins counted in the database, for controllers that share one (src/controller/auth/database-throttle.ts):
 * a row per throttled key (a client address, a username, an identity's consecutive failures), so that guessing is
 * not multiplied by the number of controllers. A controller alone on its database counts in memory instead.
 *
 * No route serves it (`api: 'client'` and no operations keep it out of the management resources' contract test).
 */
export const loginAttempt: ResourceDef = {
  name: 'login-attempt',
  plural: 'login-attempts',
  label: 'login attempt count',
  api: 'client',
  operations: [],
  table: 'login_attempts',
  description: 'Failed logins counted across the controllers sharing a database',
  fields: {
    spent: internalField(
      { kind: 'integer' },
      'Failures counted, in thousandths, less what has refilled since `at` (a throttle) or not (an identity)',
    ),
    at: internalField({ kind: 'integer' }, 'When `spent` was last written (Unix milliseconds)'),
  },
};
