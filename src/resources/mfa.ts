import { internalField as internal, serverField } from './common.js';
import type { ResourceDef } from './types.js';

/**
 * An identity's TOTP enrollment (OpenZiti keeps these as `mfas`): at most one per identity, going with it. Created
 * by `POST /current-identity/mfa`, verified by `.../mfa/verify`, removed by disabling it or by an admin.
 *
 * No standard group: it is served only through the current identity's MFA routes (src/controller/routes/client/mfa.ts),
 * in their own shapes. `api: 'client'` keeps it out of the management resources' contract test, which expects every
 * management resource to have a list of its own.
 *
 * Secrets at rest: the TOTP secret is kept as is (the controller must compute codes from it). Recovery codes are
 * kept in clear only while the enrollment is unverified (its status shows them, as OpenZiti's does); verification
 * replaces them by salted scrypt hashes, and so does regeneration.
 */
export const mfa: ResourceDef = {
  name: 'mfa',
  plural: 'mfas',
  label: 'MFA enrollment',
  api: 'client',
  operations: [],
  table: 'mfas',
  description: "An identity's time-based one-time password (TOTP) enrollment",
  fields: {
    identityId: serverField(
      { kind: 'ref', resource: 'identity', as: 'identity', onDelete: 'cascade' },
      'The enrolled identity',
      {
        filterable: true,
        unique: true,
      },
    ),
    isVerified: serverField({ kind: 'boolean' }, 'Enrollment was completed with a valid code', { default: false }),
    secret: internal({ kind: 'string' }, 'The TOTP secret, RFC 4648 base32'),
    // In clear, as OpenZiti keeps them, so that they can be shown again (GET .../recovery-codes): hashing them would
    // protect nothing from whoever reads the store, which holds the TOTP secret itself in clear.
    recoveryCodes: internal({ kind: 'string' }, 'The unused recovery codes, comma separated', { default: '' }),
    lastTimeStep: internal(
      { kind: 'integer' },
      'The last TOTP time step accepted: codes of it or earlier are replays',
      { default: 0 },
    ),
  },
};
