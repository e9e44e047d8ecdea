// Test-only certificates: a root -> intermediate -> localhost chain like a controller's, plus an unrelated CA,
// made once per test process with the openssl CLI (EC keys: fast, and independent of the controller's PKI code).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TlsFixture {
  rootPem: string;
  intermediatePem: string;
  /** root + intermediate: what /.well-known/est/cacerts serves and a client trusts */
  caBundlePem: string;
  serverKeyPem: string;
  /** leaf + intermediate: what the TLS server presents */
  serverChainPem: string;
  /** a CA that signed nothing the server presents */
  otherRootPem: string;
  /** a server chain for the same host issued by the other CA (a rebuilt controller) */
  otherServerKeyPem: string;
  otherServerChainPem: string;
}

let cached: TlsFixture | undefined;

export function tlsFixture(): TlsFixture {
  if (cached) return cached;
  const dir = mkdtempSync(path.join(tmpdir(), 'ctl-tls-'));
  const f = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const key = (name: string) => openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', f(name));
  const ext = (name: string, lines: string[]) => writeFileSync(f(name), `${lines.join('\n')}\n`);

  const selfSigned = (name: string, cn: string) => {
    key(`${name}.key`);
    openssl(
      'req',
      '-x509',
      '-new',
      '-key',
      f(`${name}.key`),
      '-subj',
      `/O=ctl-test/CN=${cn}`,
      '-days',
      '30',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-out',
      f(`${name}.pem`),
    );
  };
  const issue = (name: string, cn: string, issuer: string, extensions: string[]) => {
    key(`${name}.key`);
    openssl('req', '-new', '-key', f(`${name}.key`), '-subj', `/O=ctl-test/CN=${cn}`, '-out', f(`${name}.csr`));
    ext(`${name}.ext`, extensions);
    openssl(
      'x509',
      '-req',
      '-in',
      f(`${name}.csr`),
      '-CA',
      f(`${issuer}.pem`),
      '-CAkey',
      f(`${issuer}.key`),
      '-CAcreateserial',
      '-days',
      '30',
      '-extfile',
      f(`${name}.ext`),
      '-out',
      f(`${name}.pem`),
    );
  };
  const leafExt = [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature',
    'extendedKeyUsage=serverAuth',
    'subjectAltName=DNS:localhost,IP:127.0.0.1',
  ];

  try {
    selfSigned('root', 'Test Root CA');
    issue('intermediate', 'Test Intermediate CA', 'root', [
      'basicConstraints=critical,CA:TRUE',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
    issue('server', 'localhost', 'intermediate', leafExt);
    selfSigned('other', 'Other Root CA');
    issue('other-server', 'localhost', 'other', leafExt);
    const read = (name: string) => readFileSync(f(name), 'utf8');
    cached = {
      rootPem: read('root.pem'),
      intermediatePem: read('intermediate.pem'),
      caBundlePem: read('root.pem') + read('intermediate.pem'),
      serverKeyPem: read('server.key'),
      serverChainPem: read('server.pem') + read('intermediate.pem'),
      otherRootPem: read('other.pem'),
      otherServerKeyPem: read('other-server.key'),
      otherServerChainPem: read('other-server.pem'),
    };
    return cached;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
