import { UsageError } from './errors.js';

/**
 * Why a file could not be read or written, in words. Node's own message repeats the call and the path that the
 * message around it already names (`ENOENT: no such file or directory, open 'ca.pem'`); another error (a parse
 * error) keeps its message.
 */
const REASONS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of its path is not a directory',
  ENAMETOOLONG: 'the name is too long',
};

export function fileProblem(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  return (code !== undefined && REASONS[code]) || (err as Error).message;
}

/**
 * The text of the file a flag names (none for an operand): a usage error that names the flag and the file when it
 * cannot be read.
 */
export async function readNamedFile(file: string, flag?: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${flag === undefined ? '' : `${flag} `}${file}: ${fileProblem(err)}`);
  }
}
