import { Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { runShow } from '../generic/show.js';
import { asFormat } from '../output/formats.js';
import { findPolicy, policyArgument } from './find.js';

export function buildPolicyShow(deps: Deps): CommandUnknownOpts {
  const command = withMeta(new Command('show').addArgument(policyArgument('<name-or-id>', 'the policy to show')), {
    description: 'Show one policy of any kind in detail, with the names its @ids stand for',
    examples: ['ctl policy show sales-crm', 'ctl policy show everyone-public -o yaml'],
  });
  return command.action(async (ref) => {
    const { def, entity } = await findPolicy(await deps.api(), ref);
    await runShow({ def, ref: entity.id, format: asFormat(deps.globals().output) }, deps);
  });
}
