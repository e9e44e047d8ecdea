// `ctl policy`: one noun for the four kinds of policy (dial, bind, router, service-router), over the three policy
// resources of the catalogue; `explain` answers "can this identity use that service, and if not, why?".
import { Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { buildPolicyCreate } from './create.js';
import { buildPolicyDelete } from './delete.js';
import { buildPolicyExplain } from './explain.js';
import { buildPolicyList } from './list.js';
import { buildPolicyShow } from './show.js';
import { buildPolicyUpdate } from './update.js';

const DESCRIPTION =
  'Policies of every kind in one noun. dial and bind: which identities may use and host which services (service ' +
  'policies); router: which identities may connect to which edge routers; service-router: which services those ' +
  'routers may carry. Roles are #attribute, @name-or-id or #all.';

export function buildPolicy(deps: Deps): CommandUnknownOpts {
  const command = withMeta(new Command('policy').alias('policies'), {
    description: DESCRIPTION,
    examples: [
      "ctl policy create dial sales-crm --identities '#sales' --services @crm",
      'ctl policy list dial',
      'ctl policy explain laptop-7 crm',
    ],
  });
  for (const build of [
    buildPolicyList,
    buildPolicyShow,
    buildPolicyCreate,
    buildPolicyUpdate,
    buildPolicyDelete,
    buildPolicyExplain,
  ])
    command.addCommand(build(deps));
  return command;
}
