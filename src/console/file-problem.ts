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
