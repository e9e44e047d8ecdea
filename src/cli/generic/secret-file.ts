import { constants } from 'node:fs';
import { access, open, stat, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { FailureError, UsageError } from '../../console/errors.js';
import { fileProblem } from '../../console/file-problem.js';

/** A secret file (an enrollment JWT) checked before the controller is asked for what goes in it. */
export interface SecretFile {
  write(text: string): Promise<void>;
  /** The work failed: remove the file if we created it, so that a retry finds the path free. */
  abandon(): Promise<void>;
}

/**
 * Claims `path` for a secret before any request, so that a command never does half its work (creating an identity)
 * and then fails to save the result: a missing directory or a denied write is found now. An existing file is
 * refused unless `force`; then it is only checked for writing and replaced at the end, so a failure keeps it.
 */
export async function reserveSecretFile(path: string, opts: { force?: boolean; flag: string }): Promise<SecretFile> {
  let created: FileHandle | undefined;
  try {
    created = await open(path, 'wx', 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST') throw cannotWrite(path, err, NOTHING_SENT);
    // A directory is writable too, and --force would not make it a file.
    if (!(await stat(path)).isFile()) throw new UsageError(`${path} is not a file`, [`give ${opts.flag} a file name`]);
    if (!opts.force)
      throw new UsageError(`${path} already exists`, [`pass --force to overwrite it, or choose another ${opts.flag}`]);
    await access(path, constants.W_OK).catch((e: unknown) => {
      throw cannotWrite(path, e, NOTHING_SENT);
    });
  }
  return {
    async write(text) {
      await writeSecret(created, path, text.endsWith('\n') ? text : `${text}\n`).catch((err: unknown) => {
        throw cannotWrite(path, err, 'the request was made: what the controller returned for this file is not saved');
      });
    },
    async abandon() {
      if (!created) return;
      await created.close().catch(() => undefined);
      await unlink(path).catch(() => undefined);
    },
  };
}

/**
 * Readable by the owner only. The mode is set on the open file as well as at creation, so that overwriting an
 * existing, wider-open file does not leave the secret readable by others.
 */
async function writeSecret(reserved: FileHandle | undefined, path: string, text: string): Promise<void> {
  const file = reserved ?? (await open(path, 'w', 0o600));
  try {
    await file.chmod(0o600);
    await file.writeFile(text);
  } finally {
    await file.close();
  }
}

const NOTHING_SENT = 'nothing was sent to the controller';

/** `happened`: what was done before the file could not be written, so that nobody retries what already happened. */
function cannotWrite(path: string, err: unknown, happened: string): FailureError {
  return new FailureError(`cannot write ${path}: ${fileProblem(err)}`, [happened]);
}
