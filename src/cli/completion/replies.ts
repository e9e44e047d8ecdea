import type { Shell } from './scripts.js';
import { bashReply } from './shell-words.js';
import type { TypedWord } from './shell-words.js';
import type { Candidate } from './values.js';

/**
 * The lines `ctl __complete` prints, one per candidate, for the word under the cursor. bash inserts each line as
 * printed: its candidates come quoted for the place they go, and without descriptions, which it cannot show apart.
 * fish and zsh are given `value<TAB>description` where there is one: fish shows it beside the candidate as it is,
 * the zsh script splits it off into compadd's list of what to display.
 */
export function replies(shell: Shell | undefined, word: TypedWord, found: readonly Candidate[]): string[] {
  if (shell === 'bash') return found.map((c) => bashReply(word, c.value));
  if (shell === undefined) return found.map((c) => c.value);
  return found.map((c) => (c.description ? `${c.value}\t${c.description}` : c.value));
}
