import { UsageError } from '../../console/errors.js';
import type { Deps } from '../deps.js';
import { readStdin } from '../generic/stdin.js';

/** How many times a person may type two different passwords before the enrollment gives up. */
const ATTEMPTS = 3;

/**
 * The password a updb enrollment sets: the first line of stdin with --password-stdin, otherwise asked twice at the
 * terminal. Two answers that differ are a typing slip, not a reason to start over: ask again, a few times.
 */
export async function newPassword(opts: { passwordStdin?: boolean }, deps: Deps): Promise<string> {
  if (opts.passwordStdin) {
    const password = await readStdin(deps.io, { firstLine: true });
    if (password === '') throw new UsageError('--password-stdin was given but stdin holds no password');
    return password;
  }
  if (!deps.io.canPrompt()) {
    throw new UsageError('a updb enrollment needs a password: pass --password-stdin, or run in a terminal to be asked');
  }
  const prompter = await deps.prompter();
  for (let attempt = 1; ; attempt++) {
    const first = await prompter.password('New password:');
    if ((await prompter.password('Repeat it:')) === first) return first;
    if (attempt === ATTEMPTS)
      throw new UsageError(`the two passwords differed ${ATTEMPTS} times: nothing was enrolled`);
    deps.io.warn('the two passwords differ: type them again');
  }
}
