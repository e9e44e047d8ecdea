import { Command, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { identity } from '../../resources/identity.js';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { entityPath, resolveId } from '../generic/resolve.js';
import { nameArgument } from '../generic/words.js';
import { parseMinutes } from './duration.js';

export interface IdentityDisableOptions {
  ref: string;
  /** How long; 0 disables until `ctl identity enable`. */
  minutes: number;
}

export function buildIdentityDisable(deps: Deps, run = runIdentityDisable): CommandUnknownOpts {
  const command = withMeta(
    new Command('disable')
      .addArgument(nameArgument(identity, 'the identity to disable'))
      .addOption(new Option('--for <duration>', 'how long, e.g. 30m, 2h, 1d (default: until enabled)').argParser(parseMinutes)),
    {
      description: 'Stop an identity from authenticating, for a while or until enabled; its API sessions end',
      examples: ['ctl identity disable laptop-7 --for 2h', 'ctl identity disable laptop-7'],
    },
  );
  return command.action(async (ref, opts) => run({ ref, minutes: opts.for ?? 0 }, deps));
}

export async function runIdentityDisable(opts: IdentityDisableOptions, deps: Deps): Promise<void> {
  const api = await deps.api();
  const id = await resolveId(api, identity, opts.ref);
  await api.post(`${entityPath(identity, id)}/disable`, { durationMinutes: opts.minutes });
  deps.io.info(opts.minutes === 0 ? `disabled identity "${opts.ref}" until enabled` : `disabled identity "${opts.ref}" for ${opts.minutes} minutes`);
}
