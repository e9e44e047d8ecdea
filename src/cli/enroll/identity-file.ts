// The identity file `ctl enroll` writes and `ctl login --identity` reads: OpenZiti's SDK identity JSON (ztAPI and
// id.{key,cert,ca} as "pem:" strings), so the same file also serves OpenZiti SDKs and tunnelers.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CLIENT_BASE } from '../../protocol/envelope.js';
import { shellQuote } from '../../console/command-hint.js';
import { UsageError } from '../../console/errors.js';
import { COMPACT_JWS } from './compact-jws.js';
import { fileProblem } from '../../console/file-problem.js';

export interface IdentityFile {
  /** The controller's base URL (origin), as profiles keep it. */
  controller: string;
  cert: string;
  key: string;
  ca?: string;
}

/** The JSON text of an identity file; ztAPI is the client API URL, as OpenZiti writes it. */
export function identityFileJson(identity: IdentityFile): string {
  const ztAPI = `${identity.controller.replace(/\/+$/, '')}${CLIENT_BASE}`;
  const pem = (text: string) => `pem:${text}`;
  const doc = {
    ztAPI,
    ztAPIs: [ztAPI],
    configTypes: [],
    id: { key: pem(identity.key), cert: pem(identity.cert), ...(identity.ca ? { ca: pem(identity.ca) } : {}) },
    enableHa: false,
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** A PEM member of an identity file: `pem:...` inline, or `file://...` / a path relative to the file. */
async function member(value: unknown, where: string, name: string): Promise<string | undefined> {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new UsageError(`${where}: id.${name} is not a string`);
  if (value.startsWith('pem:')) return value.slice(4);
  if (value.includes('-----BEGIN')) return value;
  const file = value.startsWith('file://') ? new URL(value).pathname : path.resolve(path.dirname(where), value);
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${where}: cannot read id.${name} from ${file}: ${fileProblem(err)}`);
  }
}

export async function readIdentityFile(file: string): Promise<IdentityFile> {
  let doc: { ztAPI?: unknown; id?: Record<string, unknown> };
  let text = '';
  try {
    text = await readFile(file, 'utf8');
    doc = JSON.parse(text);
  } catch (err) {
    // The JWT an administrator hands out is the file a newcomer has at hand: say what to do with it.
    if (COMPACT_JWS.test(text.trim())) {
      throw new UsageError(`${file} is an enrollment JWT, not an identity file`, [
        `redeem it first: \`ctl enroll ${shellQuote(file)}\` writes the identity file`,
      ]);
    }
    throw new UsageError(`cannot read the identity file ${file}: ${fileProblem(err)}`, [
      'it is the JSON file `ctl enroll` wrote',
    ]);
  }
  if (!doc || typeof doc !== 'object' || typeof doc.ztAPI !== 'string' || !doc.id || typeof doc.id !== 'object') {
    throw new UsageError(`${file} is not an identity file: it needs ztAPI and id.{cert,key}`);
  }
  let controller: string;
  try {
    const url = new URL(doc.ztAPI);
    controller = url.origin + url.pathname.replace(/\/+$/, '').replace(/\/edge\/client\/v1$/, '');
  } catch {
    throw new UsageError(`${file}: ztAPI '${doc.ztAPI}' is not a URL`);
  }
  const cert = await member(doc.id.cert, file, 'cert');
  const key = await member(doc.id.key, file, 'key');
  if (!cert || !key)
    throw new UsageError(`${file} has no ${cert ? 'key' : 'certificate'} (id.${cert ? 'key' : 'cert'})`);
  const ca = await member(doc.id.ca, file, 'ca');
  checkCredential(cert, key, file);
  return { controller, cert, key, ca };
}

/**
 * A certificate and its key, checked before any request: both readable (PKCS#1, PKCS#8 or SEC1 EC keys), the key
 * unencrypted, and the key the certificate's. Returns nothing; throws a UsageError saying what is wrong.
 */
export function checkCredential(certPem: string, keyPem: string, where: string): void {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch (err) {
    throw new UsageError(`${where}: the certificate cannot be read: ${(err as Error).message}`);
  }
  if (/ENCRYPTED/.test(keyPem)) {
    throw new UsageError(`${where}: the private key is encrypted`, [
      'decrypt it first, e.g. `openssl pkey -in key.pem -out plain.pem`',
    ]);
  }
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(keyPem);
  } catch (err) {
    throw new UsageError(`${where}: the private key cannot be read: ${(err as Error).message}`, [
      'PEM keys in PKCS#1, PKCS#8 or EC (SEC1) form are accepted',
    ]);
  }
  if (!cert.checkPrivateKey(key)) throw new UsageError(`${where}: the private key does not belong to the certificate`);
}
