import { Argument, Command } from '@commander-js/extra-typings';
import { completeWith } from '../completion/hints.js';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';

export function buildProfileUse(deps: Deps, run = runProfileUse) {
  return withMeta(new Command('use'), {
    description:
      'Make a saved profile the current one (commands use it unless --profile or CTL_PROFILE says otherwise)',
    examples: ['ctl profile use prod'],
  })
    .addArgument(completeWith(new Argument('<name>', 'profile name'), { kind: 'profile' }))
    .action(async (name) => run({ name }, deps));
}

export async function runProfileUse(opts: { name: string }, deps: Deps): Promise<void> {
  const store = await (await deps.sessions()).profiles();
  await store.use(opts.name); // unknown names are refused (exit 5) with the list of known ones
  deps.io.info(`Now using profile ${opts.name} (${store.get(opts.name)?.controller})`);
  const override = deps.env.CTL_PROFILE;
  if (override && override !== opts.name) {
    deps.io.warn(`CTL_PROFILE=${override} is set and takes precedence over the current profile in this environment`);
  }
}
