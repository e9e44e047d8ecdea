import { open } from 'node:fs/promises';
import { FailureError } from '../../console/errors.js';

/**
 * Writes a secret (an enrollment JWT) readable by the owner only. The mode is set on the open file as well as at
 * creation, so that overwriting an existing, wider-open file does not leave the secret readable by others.
 */
export async function writeSecretFile(path: string, text: string): Promise<void> {
  try {
    const file = await open(path, 'w', 0o600);
    try {
      await file.chmod(0o600);
      await file.writeFile(text.endsWith('\n') ? text : `${text}\n`);
    } finally {
      await file.close();
    }
  } catch (err) {
    throw new FailureError(`cannot write ${path}: ${(err as Error).message}`);
  }
}
