// ctl sends text as UTF-8, and the controller refuses what is not: text that is not valid UTF-8 is refused here,
// rather than sent with U+FFFD (the replacement character) in place of the bytes that were meant.
import { UsageError } from './errors.js';

const REPLACEMENT = '\uFFFD';

/**
 * `bytes` as UTF-8 text, or `Failure` naming `source` when they are not valid UTF-8 (a Latin-1 file, a binary one).
 * A byte-order mark is dropped, as editors write one.
 */
export function decodeUtf8(
  bytes: Uint8Array,
  source: string,
  Failure: new (message: string) => Error = UsageError,
): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Failure(`${source} is not valid UTF-8 text (save it as UTF-8)`);
  }
}

/**
 * Refuses command-line arguments that were not valid UTF-8. Node decodes the arguments before any code sees them,
 * turning each invalid byte into U+FFFD, so that character stands for one: a U+FFFD typed on purpose is refused too.
 */
export function checkArgumentsUtf8(argv: readonly string[]): void {
  const bad = argv.findIndex((arg) => arg.includes(REPLACEMENT));
  if (bad < 0) return;
  throw new UsageError(`argument ${bad + 1} ('${argv[bad]}') is not valid UTF-8 text`, [
    'ctl sends text as UTF-8: convert it first (e.g. with iconv -f latin1 -t utf-8); U+FFFD itself is refused too',
  ]);
}
