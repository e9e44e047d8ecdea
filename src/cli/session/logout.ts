import { Command } from '@commander-js/extra-typings';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';

export function buildLogout(deps: Deps, run = runLogout) {
  return withMeta(new Command('logout'), {
    description:
      'End the session on the controller, then forget it locally. The profile (controller, trusted CA, user) is ' +
      'kept for the next `ctl login`; `ctl profile remove` deletes it.',
    examples: ['ctl logout', 'ctl logout --profile prod'],
  }).action(async () => run({}, deps));
}

/** Logs out of the profile chosen by --profile, CTL_PROFILE or `ctl profile use`. */
export async function runLogout(_opts: Record<string, never>, deps: Deps): Promise<void> {
  const result = await (await deps.sessions()).logout();
  const where = `${result.controller} (profile ${result.profileName})`;
  const message = {
    ended: `Logged out of ${where}`,
    'already-ended': `Logged out of ${where}; the session had already ended on the controller`,
    unreachable: `Forgot the session for ${where}`,
    'not-logged-in': `Not logged in to ${where}; nothing to do`,
  }[result.server];
  deps.io.info(message);
}
