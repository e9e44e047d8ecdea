// The confirmation of a command that destroys something it cannot give back (a credential, an enrollment, a second
// factor, a profile, sessions): asked at a terminal, `-y, --yes` in scripts, and declined (exit 3) where nobody can
// be asked.
import { DeclinedError } from '../../console/errors.js';
import type { Deps } from '../deps.js';

/** Returns once `action` is confirmed (`yes`, or yes to `question`); otherwise throws, nothing done. */
export async function confirmOrDecline(
  deps: Deps,
  opts: { yes: boolean; action: string; question: string },
): Promise<void> {
  if (opts.yes) return;
  if (!deps.io.canPrompt()) throw new DeclinedError(`${opts.action} needs confirmation`, ['pass --yes (-y)']);
  const ok = await (await deps.prompter()).confirm(opts.question, { default: false });
  if (!ok) throw new DeclinedError('nothing was changed');
}
