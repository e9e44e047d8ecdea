import { Argument, Command } from '@commander-js/extra-typings';
import { completeWith } from '../completion/hints.js';
import type { Deps } from '../deps.js';
import { confirmOrDecline } from '../generic/confirm.js';
import { yesOption } from '../generic/flags.js';
import { withMeta } from '../generic/meta.js';

export interface ProfileRemoveOptions {
  name: string;
  yes?: boolean;
}

export function buildProfileRemove(deps: Deps, run = runProfileRemove) {
  return withMeta(new Command('remove').alias('rm'), {
    description:
      'Delete a saved profile with its trusted CA and stored session. The session is not ended on the controller: ' +
      'run `ctl logout --profile NAME` first for that.',
    examples: ['ctl profile remove lab', 'ctl profile rm lab --yes'],
  })
    .addArgument(completeWith(new Argument('<name>', 'profile name'), { kind: 'profile' }))
    .addOption(yesOption())
    .action(async (name, o) => run({ name, ...o }, deps));
}

export async function runProfileRemove(opts: ProfileRemoveOptions, deps: Deps): Promise<void> {
  const store = await (await deps.sessions()).profiles();
  const profile = store.getExisting(opts.name);
  await confirmOrDecline(deps, {
    yes: opts.yes === true,
    action: `removing profile ${opts.name}`,
    question: `Remove profile ${opts.name} (${profile.controller})?`,
  });
  await store.remove(opts.name);
  deps.io.info(`Removed profile ${opts.name}`);
}
