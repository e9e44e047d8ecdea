import { Command, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { identity } from '../../resources/identity.js';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { entityPath, resolveId } from '../generic/resolve.js';
import { nameArgument } from '../generic/words.js';
import { keepsLast } from '../completion/option-facts.js';
import { parseMinutes } from '../generic/duration.js';

export interface IdentityDisableOptions {
  ref: string;
  /** How long; 0 disables until `ctl identity enable`. */
  minutes: number;
  /** The duration as the user wrote it (`1d12h`), for the message: people read back what they typed. */
  duration?: string;
}

export function buildIdentityDisable(deps: Deps, run = runIdentityDisable): CommandUnknownOpts {
  const command = withMeta(
    new Command('disable')
      .addArgument(nameArgument(identity, 'the identity to disable'))
      .addOption(
        new Option('--for <duration>', 'how long, e.g. 30m, 2h, 1d (default: until enabled)').argParser(
          keepsLast((text: string) => ({ minutes: parseMinutes(text), text: text.trim() })),
        ),
      ),
    {
      description: 'Stop an identity from authenticating, for a while or until enabled; its API sessions end',
      examples: ['ctl identity disable laptop-7 --for 2h', 'ctl identity disable laptop-7'],
    },
  );
  return command.action(async (ref, opts) =>
    run({ ref, minutes: opts.for?.minutes ?? 0, ...(opts.for ? { duration: opts.for.text } : {}) }, deps),
  );
}

export async function runIdentityDisable(opts: IdentityDisableOptions, deps: Deps): Promise<void> {
  const api = await deps.api();
  const id = await resolveId(api, identity, opts.ref);
  await api.post(`${entityPath(identity, id)}/disable`, { durationMinutes: opts.minutes });
  const howLong = opts.minutes === 0 ? 'until enabled' : `for ${opts.duration ?? `${opts.minutes}m`}`;
  deps.io.info(`disabled identity "${opts.ref}" ${howLong}`);
}
