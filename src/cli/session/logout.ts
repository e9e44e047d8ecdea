import { Command } from '@commander-js/extra-typings';
import type { LogoutResult } from '../../client/session-manager.js';
import type { Deps } from '../deps.js';
import { confirmOrDecline } from '../generic/confirm.js';
import { yesOption } from '../generic/flags.js';
import { withMeta } from '../generic/meta.js';

export function buildLogout(deps: Deps, run = runLogout) {
  return withMeta(new Command('logout'), {
    description:
      'End the session on the controller, then forget it locally. The profile (controller, trusted CA, user) is ' +
      'kept for the next `ctl login`; `ctl profile remove` deletes it.',
    examples: ['ctl logout', 'ctl logout --profile prod', 'ctl logout --all --yes'],
  })
    .option('--all', 'end the session of every profile that has one, each on its own controller')
    .addOption(yesOption())
    .action(async (opts) => run(opts, deps));
}

/**
 * Logs out of the profile chosen by --profile, CTL_PROFILE or `ctl profile use`; with `all`, of every profile
 * holding a session, once confirmed (it ends sessions other shells and scripts may be using).
 */
export async function runLogout(opts: { all?: boolean; yes?: boolean }, deps: Deps): Promise<void> {
  const sessions = await deps.sessions();
  if (!opts.all) {
    deps.io.info(said(await sessions.logout()));
    return;
  }
  const store = await sessions.profiles();
  const names = store
    .list()
    .map((p) => p.name)
    .filter((name) => store.session(name) !== undefined);
  if (names.length === 0) {
    deps.io.info('No profile holds a session; nothing to do');
    return;
  }
  await confirmOrDecline(deps, {
    yes: opts.yes === true,
    action: 'logout --all',
    question: `End the sessions of ${names.length === 1 ? 'profile' : 'profiles'} ${names.join(', ')}?`,
  });
  for (const name of names) deps.io.info(said(await sessions.logout({ profileName: name })));
}

function said(result: LogoutResult): string {
  const where = `${result.controller} (profile ${result.profileName})`;
  return {
    ended: `Logged out of ${where}`,
    'already-ended': `Logged out of ${where}; the session had already ended on the controller`,
    unreachable: `Forgot the session for ${where}`,
    'not-logged-in': `Not logged in to ${where}; nothing to do`,
  }[result.server];
}
