// The key that seals the CA private keys kept in the database (--pki-key-file). Construction: AES-256-GCM, its key
// derived from the file's secret by HKDF-SHA256 with a random salt per sealing, and the certificates the keys belong
// to as associated data. HKDF rather than scrypt: the file is a machine-made random secret of at least 32 bytes
// (`openssl rand -base64 48`), which a slow derivation would not make harder to guess; a short file, which could be a
// person's passphrase, is refused instead. GCM authenticates: a wrong key, a changed byte or keys moved onto other
// certificates fail to open, and the start is refused before anything is served.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { ControllerStartError } from '../start-error.js';

/** The shortest secret accepted: 32 bytes, as many as the AES key it derives. */
export const MIN_SECRET_BYTES = 32;
const INFO = Buffer.from('ctl controller PKI keys v1');
const VERSION = 'v1';
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Sealed keys that this key cannot open: another key file, or a damaged row. */
export class PkiKeyMismatchError extends ControllerStartError {}

export interface PkiKey {
  /** Where the secret came from, for messages. */
  readonly file: string;
  /** `text` sealed, bound to `context` (which must be given again to open it). */
  seal(text: string, context: string): string;
  /** The text `seal` sealed with the same secret and context; PkiKeyMismatchError otherwise. */
  open(sealed: string, context: string): string;
}

/**
 * Reads the key file: a regular file that only its owner may read (like the data directory's keys), holding at
 * least MIN_SECRET_BYTES bytes once surrounding whitespace is dropped.
 */
export function readPkiKeyFile(file: string): PkiKey {
  let mode: number;
  let secret: Buffer;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new ControllerStartError(`--pki-key-file ${file} is not a regular file`);
    mode = stat.mode & 0o777;
    secret = Buffer.from(readFileSync(file, 'utf8').trim(), 'utf8');
  } catch (err) {
    if (err instanceof ControllerStartError) throw err;
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ControllerStartError(`--pki-key-file ${file} cannot be read: ${reason}`);
  }
  if ((mode & 0o077) !== 0) {
    throw new ControllerStartError(
      `--pki-key-file ${file} may be read by other users (mode ${mode.toString(8).padStart(4, '0')}): ` +
        `it protects the CA keys; run chmod 600 ${file}`,
    );
  }
  if (secret.length < MIN_SECRET_BYTES) {
    throw new ControllerStartError(
      `--pki-key-file ${file} holds ${secret.length} bytes: it needs a random secret of at least ${MIN_SECRET_BYTES} ` +
        `(make one with: openssl rand -base64 48 > ${file})`,
    );
  }
  return pkiKey(file, secret);
}

function pkiKey(file: string, secret: Buffer): PkiKey {
  const derive = (salt: Buffer) => Buffer.from(hkdfSync('sha256', secret, salt, INFO, 32));
  return {
    file,
    seal(text, context) {
      const salt = randomBytes(SALT_BYTES);
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', derive(salt), iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
      return `${VERSION}.${Buffer.concat([salt, iv, cipher.getAuthTag(), body]).toString('base64')}`;
    },
    open(sealed, context) {
      const mismatch = () =>
        new PkiKeyMismatchError(
          `the CA keys in the database do not open with --pki-key-file ${file}: it is not the key file the other ` +
            'controllers of this database use (or the stored keys are damaged); give every controller the same file',
        );
      const [version, encoded] = sealed.split('.', 2);
      if (version !== VERSION || encoded === undefined) throw mismatch();
      const raw = Buffer.from(encoded, 'base64');
      const salt = raw.subarray(0, SALT_BYTES);
      const iv = raw.subarray(SALT_BYTES, SALT_BYTES + IV_BYTES);
      const tag = raw.subarray(SALT_BYTES + IV_BYTES, SALT_BYTES + IV_BYTES + TAG_BYTES);
      const body = raw.subarray(SALT_BYTES + IV_BYTES + TAG_BYTES);
      try {
        const decipher = createDecipheriv('aes-256-gcm', derive(salt), iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
      } catch {
        throw mismatch();
      }
    },
  };
}
