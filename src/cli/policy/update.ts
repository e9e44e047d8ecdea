import { Command, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { UsageError } from '../../console/errors.js';
import type { Deps } from '../deps.js';
import { dryRunnable } from '../generic/dry-run.js';
import { withMeta } from '../generic/meta.js';
import { entityPath } from '../generic/resolve.js';
import { nameAfter } from '../generic/words.js';
import { policyBody } from './create.js';
import { printWritten } from '../generic/written.js';
import { findPolicy, policyArgument } from './find.js';
import { addPolicyFlags, type PolicyFlagValues, readPolicyFlags } from './flags.js';
import { kindOf } from './kinds.js';

export interface PolicyUpdateOptions extends PolicyFlagValues {
  ref: string;
  rename?: string;
}

export function buildPolicyUpdate(deps: Deps, run = runPolicyUpdate): CommandUnknownOpts {
  const base = withMeta(new Command('update').addArgument(policyArgument('<name-or-id>', 'the policy to change')), {
    description: 'Change a policy: each role flag given replaces that role set; the others stay',
    examples: [
      "ctl policy update sales-crm --services '@crm,@wiki'",
      'ctl policy update everyone-public --semantic AnyOf --name public-routers',
    ],
  });
  const command = addPolicyFlags(base.addOption(new Option('--name <name>', 'a new name')));
  return command.action(async (ref, o, cmd) =>
    dryRunnable(cmd, deps, (d) => run({ ref, rename: o.name, ...readPolicyFlags(cmd) }, d)),
  );
}

export async function runPolicyUpdate(opts: PolicyUpdateOptions, deps: Deps): Promise<void> {
  const api = await deps.api();
  const { def, entity } = await findPolicy(api, opts.ref);
  const kind = kindOf(def, entity);
  const body = { ...(opts.rename === undefined ? {} : { name: opts.rename }), ...(await policyBody(deps, kind, opts)) };
  if (Object.keys(body).length === 0)
    throw new UsageError('nothing to change: give --name, --semantic, --tag or a role flag');
  await api.patch(entityPath(def, entity.id), body, { api: def.api });
  deps.io.info(`updated ${kind.kind} policy "${nameAfter(String(entity.name), body)}" (${entity.id})`);
  await printWritten(deps, def, entity.id);
}
