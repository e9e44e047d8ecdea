import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import forge from 'node-forge';
import { issuedByThisPki, loadOrCreatePki } from './pki.js';
import { acceptCsr, issueClientCert } from './issue.js';
import { createCsr } from '../../protocol/csr.js';
import type { Pki } from './pki.js';

const HOSTS = ['localhost', '127.0.0.1', '::1', 'ctl.example.test'];
const NOW = new Date('2030-06-01T00:00:00Z');
const DAY = 86_400_000;
const posix = process.platform !== 'win32';

const x509 = (pem: string) => new X509Certificate(pem);
const years = (a: string, b: string) => (new Date(b).getTime() - new Date(a).getTime()) / (365.25 * DAY);

let tmp: string;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-pki-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

// Making a PKI costs three RSA keys: the tests of later calls start from copies of one made at NOW, and those that
// need a stranger's PKI share one.
let madeAtNow: Promise<string> | undefined;
async function copyOfPkiMadeAtNow(name: string): Promise<string> {
  madeAtNow ??= (async () => {
    const dir = path.join(tmp, 'made-at-now');
    await loadOrCreatePki(dir, { hosts: HOSTS, now: NOW });
    return dir;
  })();
  const dir = path.join(tmp, name);
  await cp(await madeAtNow, dir, { recursive: true });
  return dir;
}
let another: Promise<Pki> | undefined;
const anotherPki = () => (another ??= loadOrCreatePki(path.join(tmp, 'another'), { hosts: HOSTS, now: NOW }));

describe('loadOrCreatePki: first call', () => {
  let dir: string;
  let pki: Pki;
  before(async () => {
    dir = path.join(tmp, 'first', 'pki'); // nested: parents are created too
    pki = await loadOrCreatePki(dir, { hosts: HOSTS, now: NOW });
  });

  it('builds a chain root -> intermediate -> server that verifies', () => {
    const root = x509(pki.rootCertPem);
    const int = x509(pki.intermediateCertPem);
    const server = x509(pki.serverCertPem);
    assert.ok(root.checkIssued(root) && root.verify(root.publicKey), 'root is self-signed');
    assert.ok(int.checkIssued(root) && int.verify(root.publicKey), 'intermediate signed by root');
    assert.ok(server.checkIssued(int) && server.verify(int.publicKey), 'server signed by intermediate');
    assert.equal(server.verify(root.publicKey), false);
    assert.equal(root.ca, true);
    assert.equal(int.ca, true);
    assert.equal(server.ca, false);
  });

  it('uses the documented names, lifetimes and a pathLen 0 intermediate', () => {
    const root = x509(pki.rootCertPem);
    const int = x509(pki.intermediateCertPem);
    const server = x509(pki.serverCertPem);
    assert.match(root.subject, /CN=ctl Root CA/);
    assert.match(root.subject, /O=ctl/);
    assert.match(int.subject, /CN=ctl Intermediate CA/);
    assert.equal(int.issuer, root.subject);
    assert.match(server.subject, /CN=localhost/); // first host
    assert.equal(server.issuer, int.subject);
    assert.ok(Math.abs(years(root.validFrom, root.validTo) - 10) < 0.01);
    assert.ok(Math.abs(years(int.validFrom, int.validTo) - 5) < 0.01);
    assert.ok(Math.abs(years(server.validFrom, server.validTo) - 1) < 0.01);
    assert.ok(new Date(server.validFrom).getTime() <= NOW.getTime());
    const bc = forge.pki.certificateFromPem(pki.intermediateCertPem).getExtension('basicConstraints') as {
      cA: boolean;
      pathLenConstraint?: number;
    };
    assert.equal(bc.cA, true);
    assert.equal(bc.pathLenConstraint, 0);
  });

  it('gives the server cert SANs for DNS names and IPs, and serverAuth + clientAuth', () => {
    const server = x509(pki.serverCertPem);
    assert.match(server.subjectAltName ?? '', /DNS:localhost/);
    assert.match(server.subjectAltName ?? '', /DNS:ctl\.example\.test/);
    assert.match(server.subjectAltName ?? '', /IP Address:127\.0\.0\.1/);
    assert.doesNotMatch(server.subjectAltName ?? '', /DNS:127|DNS:::1/);
    assert.equal(server.checkIP('127.0.0.1'), '127.0.0.1');
    assert.equal(server.checkIP('::1'), '::1');
    assert.equal(server.checkHost('ctl.example.test'), 'ctl.example.test');
    assert.deepEqual([...(server.keyUsage ?? [])].sort(), ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
  });

  it('uses positive 16-byte random serials', () => {
    const serials = [pki.rootCertPem, pki.intermediateCertPem, pki.serverCertPem].map((p) => x509(p).serialNumber);
    for (const s of serials) {
      assert.match(s, /^[0-7][0-9A-F]{31}$/i);
      assert.notEqual(s.slice(0, 2), '00');
    }
    assert.equal(new Set(serials).size, 3);
  });

  it('returns chain and bundle PEMs in the documented order', () => {
    assert.equal(pki.serverChainPem, pki.serverCertPem + pki.intermediateCertPem);
    assert.equal(pki.caBundlePem, pki.rootCertPem + pki.intermediateCertPem);
    assert.match(pki.trustDomain, /^ctl-[0-9a-f]{8}$/);
  });

  it('writes files with private modes and no temp files', { skip: !posix && 'POSIX modes only' }, async () => {
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    const names = (await readdir(dir)).sort();
    assert.deepEqual(names, [
      'intermediate.cert.pem',
      'intermediate.key.pem',
      'root.cert.pem',
      'root.key.pem',
      'server.cert.pem',
      'server.key.pem',
      'trust-domain',
    ]);
    for (const n of names) {
      const mode = (await stat(path.join(dir, n))).mode & 0o777;
      assert.equal(mode, n.endsWith('.key.pem') ? 0o600 : 0o644, n);
    }
    assert.equal(await readFile(path.join(dir, 'server.key.pem'), 'utf8'), pki.serverKeyPem);
    assert.equal((await readFile(path.join(dir, 'trust-domain'), 'utf8')).trim(), pki.trustDomain);
  });
});

// TLS checks use the real clock, so this PKI is created for the present, not for NOW.
describe('loadOrCreatePki: TLS', () => {
  it('a client trusting only the root connects via localhost and 127.0.0.1, and rejects other names', async () => {
    const pki = await loadOrCreatePki(path.join(tmp, 'tls'), { hosts: ['localhost', '127.0.0.1', '::1'] });
    const server = https.createServer({ cert: pki.serverChainPem, key: pki.serverKeyPem }, (_req, res) =>
      res.end('ok'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const get = (opts: https.RequestOptions) =>
      new Promise<string>((resolve, reject) => {
        const req = https.get(
          { host: '127.0.0.1', port, path: '/', ca: pki.rootCertPem, agent: false, ...opts },
          (res) => {
            let body = '';
            res.on('data', (c) => (body += c));
            res.on('end', () => resolve(body));
          },
        );
        req.on('error', reject);
      });
    try {
      assert.equal(await get({ servername: 'localhost' }), 'ok');
      assert.equal(await get({}), 'ok'); // identity checked against the IP SAN
      await assert.rejects(get({ servername: 'other.example' }), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
      const stranger = await loadOrCreatePki(path.join(tmp, 'stranger'), { hosts: ['localhost'] });
      await assert.rejects(get({ servername: 'localhost', ca: stranger.rootCertPem }), {
        code: 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
      });
    } finally {
      server.close();
    }
  });
});

describe('loadOrCreatePki: later calls', () => {
  it('reuses everything when nothing changed', async () => {
    const dir = await copyOfPkiMadeAtNow('reuse');
    const a = await loadOrCreatePki(dir, { hosts: HOSTS, now: NOW });
    const b = await loadOrCreatePki(dir, { hosts: ['LOCALHOST', '127.0.0.1'], now: new Date(NOW.getTime() + DAY) });
    assert.deepEqual(b, a);
  });

  it('issues a new server cert from the same CA for a new host', async () => {
    const dir = await copyOfPkiMadeAtNow('newhost');
    const a = await loadOrCreatePki(dir, { hosts: HOSTS, now: NOW });
    const b = await loadOrCreatePki(dir, { hosts: [...HOSTS, '10.1.2.3', 'new.example.test'], now: NOW });
    assert.equal(b.rootCertPem, a.rootCertPem);
    assert.equal(b.intermediateCertPem, a.intermediateCertPem);
    assert.equal(b.trustDomain, a.trustDomain);
    assert.notEqual(b.serverCertPem, a.serverCertPem);
    assert.notEqual(b.serverKeyPem, a.serverKeyPem);
    const server = x509(b.serverCertPem);
    assert.equal(server.checkIP('10.1.2.3'), '10.1.2.3');
    assert.equal(server.checkHost('new.example.test'), 'new.example.test');
    assert.ok(server.verify(x509(a.intermediateCertPem).publicKey));
    // and that new cert is what is on disk now
    assert.deepEqual(await loadOrCreatePki(dir, { hosts: ['new.example.test'], now: NOW }), b);
  });

  it('renews a server cert that expires within 30 days', async () => {
    const dir = await copyOfPkiMadeAtNow('renew');
    const a = await loadOrCreatePki(dir, { hosts: HOSTS, now: NOW });
    const later = new Date(NOW.getTime() + 340 * DAY);
    const b = await loadOrCreatePki(dir, { hosts: HOSTS, now: later });
    assert.equal(b.rootCertPem, a.rootCertPem);
    assert.notEqual(b.serverCertPem, a.serverCertPem);
    assert.ok(new Date(x509(b.serverCertPem).validTo).getTime() > later.getTime() + 300 * DAY);
  });

  it('reissues a server cert whose key no longer matches, and survives a stray temp file', async () => {
    const dir = await copyOfPkiMadeAtNow('mismatch');
    const a = await loadOrCreatePki(dir, { hosts: HOSTS, now: NOW });
    const other = await anotherPki();
    await writeFile(path.join(dir, 'server.key.pem'), other.serverKeyPem);
    await writeFile(path.join(dir, 'server.key.pem.1.abcd.tmp'), '-----BEGIN PRIV'); // as a crash would leave
    const b = await loadOrCreatePki(dir, { hosts: HOSTS, now: NOW });
    assert.equal(b.rootCertPem, a.rootCertPem);
    assert.ok(x509(b.serverCertPem).checkPrivateKey((await import('node:crypto')).createPrivateKey(b.serverKeyPem)));
  });

  it('refuses to replace a missing root once an intermediate exists', async () => {
    const dir = await copyOfPkiMadeAtNow('noroot');
    await loadOrCreatePki(dir, { hosts: HOSTS, now: NOW });
    await rm(path.join(dir, 'root.key.pem'));
    await assert.rejects(loadOrCreatePki(dir, { hosts: HOSTS, now: NOW }), /inconsistent/);
  });

  it('rejects an empty host list', async () => {
    await assert.rejects(loadOrCreatePki(path.join(tmp, 'nohosts'), { hosts: [' '] }), /host/);
  });
});

describe('loadOrCreatePki: intermediate rotation', () => {
  const csr = () => acceptCsr(createCsr(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey, 'device'));

  it('certificates the outgoing intermediate issued keep verifying across later rotations and restarts', async () => {
    const dir = await copyOfPkiMadeAtNow('rotate');
    const a = await loadOrCreatePki(dir, { hosts: HOSTS, now: NOW });
    assert.deepEqual(a.previousIntermediateCertPems, []);
    const oldLeaf = x509(issueClientCert(a, csr(), { uris: [], now: NOW }).leafPem);
    assert.ok(issuedByThisPki(a, oldLeaf));

    // Within 30 days of its expiry (5 years) the intermediate is replaced; the root stays.
    const later = new Date(NOW.getTime() + (5 * 365 - 20) * DAY);
    const b = await loadOrCreatePki(dir, { hosts: HOSTS, now: later });
    assert.equal(b.rootCertPem, a.rootCertPem);
    assert.notEqual(b.intermediateCertPem, a.intermediateCertPem);
    assert.ok(
      x509(b.serverCertPem).verify(x509(b.intermediateCertPem).publicKey),
      'the server certificate follows the new intermediate',
    );
    assert.deepEqual(b.previousIntermediateCertPems, [
      a.intermediateCertPem.endsWith('\n') ? a.intermediateCertPem : `${a.intermediateCertPem}\n`,
    ]);
    assert.ok(issuedByThisPki(b, oldLeaf), 'an old client certificate still verifies');
    assert.ok(
      b.caBundlePem.includes(a.intermediateCertPem.trim()),
      'the bundle carries the old intermediate for peers',
    );
    const newLeaf = x509(issueClientCert(b, csr(), { uris: [], now: later }).leafPem);
    assert.ok(newLeaf.verify(x509(b.intermediateCertPem).publicKey), 'new certificates come from the new intermediate');

    // A restart reads the same; a second rotation keeps both earlier intermediates.
    assert.deepEqual(await loadOrCreatePki(dir, { hosts: HOSTS, now: later }), b);
    const muchLater = new Date(later.getTime() + 5 * 365 * DAY - 20 * DAY);
    const c = await loadOrCreatePki(dir, { hosts: HOSTS, now: muchLater });
    assert.equal(c.previousIntermediateCertPems.length, 2);
    assert.ok(issuedByThisPki(c, oldLeaf) && issuedByThisPki(c, newLeaf));

    // A certificate of another PKI is not ours, whatever its names.
    const foreign = await anotherPki();
    assert.equal(issuedByThisPki(c, x509(issueClientCert(foreign, csr(), { uris: [], now: NOW }).leafPem)), false);
  });

  it('drops anything in the previous-intermediates file that the root did not sign', async () => {
    const dir = await copyOfPkiMadeAtNow('rotate-junk');
    const a = await loadOrCreatePki(dir, { hosts: HOSTS, now: NOW });
    const foreign = await anotherPki();
    await writeFile(
      path.join(dir, 'intermediate-previous.cert.pem'),
      `${foreign.intermediateCertPem}\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`,
    );
    const b = await loadOrCreatePki(dir, { hosts: HOSTS, now: NOW });
    assert.deepEqual(b.previousIntermediateCertPems, []);
    assert.equal(b.caBundlePem, a.caBundlePem);
  });
});
