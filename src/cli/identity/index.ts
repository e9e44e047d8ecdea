// The identity noun's own verbs, added to the generic ones (list, show, update, delete, and the relation lists)
// when `ctl identity ...` runs; registered in src/cli/tree.ts with nounCommands.
import type { NounModule } from '../nouns/verbs.js';
import { buildIdentityCreate } from './create.js';
import { buildIdentityDisable } from './disable.js';
import { buildIdentityEnable } from './enable.js';
import { buildIdentityServiceConfigs } from './service-configs.js';
import { buildIdentityExtendCert } from '../enroll/extend-cert.js';
import { buildIdentityMfaReset } from '../mfa/reset.js';

export const verbs: NounModule['verbs'] = {
  create: (deps) => buildIdentityCreate(deps),
  enable: (deps) => buildIdentityEnable(deps),
  disable: (deps) => buildIdentityDisable(deps),
  'service-configs': (deps) => buildIdentityServiceConfigs(deps),
  'extend-cert': (deps) => buildIdentityExtendCert(deps),
  'mfa-reset': (deps) => buildIdentityMfaReset(deps),
};
