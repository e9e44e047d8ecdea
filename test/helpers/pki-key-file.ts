import { writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Writes the key file controllers sharing a test database are started with (owner-only, long enough) into dir. */
export async function writeTestKeyFile(dir: string): Promise<string> {
  const file = path.join(dir, 'pki.key');
  await writeFile(file, 'a-secret-of-forty-eight-bytes-made-for-this-test', { mode: 0o600 });
  return file;
}
