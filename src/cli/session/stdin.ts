import type { IO } from '../../console/io.js';

/**
 * Reads stdin: everything, or only the first line (`--password-stdin`, where a trailing newline from `echo` or a
 * secrets file is not part of the password). Stops reading at the first newline in that case.
 */
export async function readStdin(io: IO, opts: { firstLine?: boolean } = {}): Promise<string> {
  let text = '';
  for await (const chunk of io.stdin) {
    text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    if (opts.firstLine && text.includes('\n')) break;
  }
  return opts.firstLine ? text.split(/\r?\n/)[0] : text;
}
