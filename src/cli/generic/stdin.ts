import type { IO } from '../../console/io.js';
import { decodeUtf8 } from '../../console/utf8.js';

/**
 * Reads stdin: everything, or only the first line (`--password-stdin`, where a trailing newline from `echo` or a
 * secrets file is not part of the password). Stops reading at the first newline in that case.
 */
export async function readStdin(io: IO, opts: { firstLine?: boolean } = {}): Promise<string> {
  // Bytes are decoded once, at the end: a character split between two chunks stays whole, and invalid UTF-8 is refused.
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    if (opts.firstLine && (chunks.at(-1) as Buffer).includes(0x0a)) break;
  }
  const text = decodeUtf8(Buffer.concat(chunks), 'stdin');
  return opts.firstLine ? text.split(/\r?\n/)[0] : text;
}
