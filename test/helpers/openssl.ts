/**
 * Certificates made by the openssl binary (a client nobody here wrote): self-signed CAs and certificates they sign,
 * in a scratch directory of the test process.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ctl-cas-'));
const openssl = (...args: string[]) =>
  execFileSync('openssl', args, { cwd: tmp, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

/** A CA made by openssl: its files' paths and its certificate. */
export function opensslCa(name: string, opts: { isCa?: boolean } = {}): { key: string; cert: string; pem: string } {
  const key = path.join(tmp, `${name}.key`);
  const cert = path.join(tmp, `${name}.crt`);
  const ext =
    opts.isCa === false
      ? ['-addext', 'basicConstraints=critical,CA:FALSE']
      : ['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'];
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-subj',
    `/CN=${name}`,
    '-days',
    '30',
    ...ext,
  );
  return { key, cert, pem: readFileSync(cert, 'utf8') };
}

/** A certificate with common name `cn` signed by `issuer` (openssl req + x509 -req). */
export function opensslSigned(issuer: { key: string; cert: string }, cn: string, name = cn): string {
  const key = path.join(tmp, `${name}.leaf.key`);
  const csr = path.join(tmp, `${name}.csr`);
  const cert = path.join(tmp, `${name}.leaf.crt`);
  openssl(
    'req',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    key,
    '-out',
    csr,
    '-subj',
    `/CN=${cn}`,
  );
  openssl(
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    issuer.cert,
    '-CAkey',
    issuer.key,
    '-CAcreateserial',
    '-out',
    cert,
    '-days',
    '1',
  );
  return readFileSync(cert, 'utf8');
}

/** The key file opensslSigned made for `name`. */
export function opensslSignedKey(name: string): string {
  return readFileSync(path.join(tmp, `${name}.leaf.key`), 'utf8');
}
