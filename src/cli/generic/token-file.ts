// A JWT read from a file or stdin (`ctl login --ext-jwt`, `ctl signer test`), never from the command line, where
// other users of the machine could read it in the process list.
import { UsageError } from '../../console/errors.js';
import type { Deps } from '../deps.js';
import { readStdin } from './stdin.js';
import { readNamedFile } from '../../console/file-problem.js';

/** The token in `source`: the file's (or stdin's) text, trimmed; refused when it is plainly not a JWT. */
export async function readToken(source: string, deps: Deps, flag = '--ext-jwt'): Promise<string> {
  const text = source === '-' ? await readStdin(deps.io) : await readNamedFile(source, flag);
  const token = text.trim();
  const where = `${flag} ${source === '-' ? '-: stdin' : source}`;
  if (token === '') throw new UsageError(`${where} holds no token`);
  if (token.split('.').length !== 3 || /\s/.test(token)) {
    throw new UsageError(`${where} does not hold a JWT (three base64url parts separated by dots)`);
  }
  return token;
}
