import { Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { identity } from '../../resources/identity.js';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { entityPath, resolveId } from '../generic/resolve.js';
import { nameArgument } from '../generic/words.js';

export interface IdentityEnableOptions {
  ref: string;
}

export function buildIdentityEnable(deps: Deps, run = runIdentityEnable): CommandUnknownOpts {
  const command = withMeta(new Command('enable').addArgument(nameArgument(identity, 'the identity to enable')), {
    description: 'Let a disabled identity authenticate again',
    examples: ['ctl identity enable laptop-7'],
  });
  return command.action(async (ref) => run({ ref }, deps));
}

export async function runIdentityEnable(opts: IdentityEnableOptions, deps: Deps): Promise<void> {
  const api = await deps.api();
  const id = await resolveId(api, identity, opts.ref);
  await api.post(`${entityPath(identity, id)}/enable`, undefined);
  deps.io.info(`enabled identity "${opts.ref}"`);
}
