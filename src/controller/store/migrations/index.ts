import type { Migration } from '../schema-diff.js';
import { migration as m0001 } from './0001-identities.js';
import { migration as m0002 } from './0002-one-password-per-identity.js';
import { migration as m0003 } from './0003-config-types-and-configs.js';
import { migration as m0004 } from './0004-the-management-table-certificate-authorities-and-signers.js';
import { migration as m0005 } from './0005-mfa-and-pki.js';
import { migration as m0006 } from './0006-signer-enrollment.js';
import { migration as m0007 } from './0007-name-search.js';
import { migration as m0008 } from './0008-controllers-and-shared-pki.js';
import { migration as m0009 } from './0009-shared-login-attempts-and-service-update-stamps.js';
import { migration as m0010 } from './0010-shared-posture-reports.js';
import { migration as m0011 } from './0011-substring-indexes-and-value-counts.js';
import { migration as m0012 } from './0012-write-versions.js';
import { migration as m0013 } from './0013-folded-substring-indexes.js';

/**
 * The recorded history of the schema, oldest first. Never edit a migration that has shipped: change the catalogue,
 * then run `npm run schema:migration -- <name>` to record the difference as the next one. `schema.test.ts` fails
 * while the catalogue and this history disagree.
 */
export const MIGRATIONS: readonly Migration[] = [
  m0001,
  m0002,
  m0003,
  m0004,
  m0005,
  m0006,
  m0007,
  m0008,
  m0009,
  m0010,
  m0011,
  m0012,
  m0013,
];
