/**
 * The words of a command line as a shell holds them while it is being typed: with their quotes and backslashes
 * (`'#sales,@`, `\#sa`), the last one perhaps inside a quote not yet closed. Completion works on what they mean,
 * and answers bash in the form its line editor inserts (zsh and fish quote what they insert themselves).
 */
import type { Shell } from './scripts.js';

export type Quote = "'" | '"';

export interface TypedWord {
  /** What the word means once the shell removes its quoting. */
  value: string;
  /** The quote left open at the end of the word, if any. */
  open?: Quote;
  /** The meaning of the text before that open quote: bash's line editor replaces only what follows the quote. */
  beforeOpen: string;
}

/** Backslash escapes inside double quotes (elsewhere a backslash makes any character literal). */
const DOUBLE_QUOTED_ESCAPES = new Set(['$', '`', '"', '\\', '\n']);

export function unquote(raw: string): TypedWord {
  let value = '';
  let open: Quote | undefined;
  let beforeOpen = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (open === "'") {
      if (c === "'") open = undefined;
      else value += c;
    } else if (open === '"') {
      if (c === '"') open = undefined;
      else if (c === '\\' && i + 1 < raw.length && DOUBLE_QUOTED_ESCAPES.has(raw[i + 1]!)) value += raw[++i];
      else value += c;
    } else if (c === "'" || c === '"') {
      open = c;
      beforeOpen = value;
    } else if (c === '\\') {
      if (i + 1 < raw.length) value += raw[++i];
    } else value += c;
  }
  return open ? { value, open, beforeOpen } : { value, beforeOpen: '' };
}

/** Characters bash takes literally outside quotes; every other one is escaped with a backslash, as `printf %q` does. */
const BASH_PLAIN = /[^A-Za-z0-9_@%+=:,./-]/g;

/**
 * A candidate as bash's line editor must insert it in place of `word`: inside an open quote, the text after the
 * quote with only what that quote needs escaped (the editor closes the quote when the candidate is the only one);
 * outside quotes, the whole word with every special character escaped.
 */
export function bashReply(word: TypedWord, candidate: string): string {
  if (word.open === "'") return candidate.slice(word.beforeOpen.length).replace(/'/g, `'\\''`);
  if (word.open === '"') return candidate.slice(word.beforeOpen.length).replace(/[$`"\\]/g, '\\$&');
  return candidate.replace(BASH_PLAIN, '\\$&');
}

/**
 * The words a shell's completion script hands over, read as values. bash and zsh pass every word as typed; fish
 * passes the words before the cursor already unquoted (`commandline -opc`) and the one under it as typed.
 */
export function typedWords(shell: Shell, words: readonly string[]): TypedWord[] {
  return words.map((w, i) => (shell === 'fish' && i < words.length - 1 ? { value: w, beforeOpen: '' } : unquote(w)));
}
