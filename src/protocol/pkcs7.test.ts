import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadOrCreatePki } from '../controller/pki/pki.js';
import type { Pki } from '../controller/pki/pki.js';
import { certsOnlyPkcs7Base64, certSummary, parsePkcs7Certs, sha256Fingerprint } from './pkcs7.js';

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;
const der = (pem: string) => new X509Certificate(pem).raw;

let tmp: string;
let pki: Pki;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-pkcs7-'));
  pki = await loadOrCreatePki(path.join(tmp, 'pki'), { hosts: ['localhost'] });
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('certsOnlyPkcs7Base64 / parsePkcs7Certs', () => {
  it('round-trips every certificate, in order, byte for byte', () => {
    const body = certsOnlyPkcs7Base64([pki.rootCertPem, pki.intermediateCertPem]);
    const certs = parsePkcs7Certs(body);
    assert.equal(certs.length, 2);
    assert.deepEqual(der(certs[0]), der(pki.rootCertPem));
    assert.deepEqual(der(certs[1]), der(pki.intermediateCertPem));
    assert.equal(certs[0], pki.rootCertPem); // same PEM layout too
  });

  it('accepts multi-certificate PEM bundles as entries', () => {
    const certs = parsePkcs7Certs(certsOnlyPkcs7Base64([pki.caBundlePem, pki.serverCertPem]));
    assert.deepEqual(
      certs.map((c) => der(c)),
      [pki.rootCertPem, pki.intermediateCertPem, pki.serverCertPem].map((c) => der(c)),
    );
  });

  it('wraps base64 at 64 chars with \\n and no trailing newline', () => {
    const body = certsOnlyPkcs7Base64([pki.rootCertPem, pki.intermediateCertPem]);
    assert.doesNotMatch(body, /\r|\n$|\s\n|\n\n/);
    const lines = body.split('\n');
    assert.ok(lines.length > 2);
    for (const l of lines.slice(0, -1)) assert.equal(l.length, 64);
    assert.ok(lines.at(-1)!.length > 0 && lines.at(-1)!.length <= 64);
    assert.match(body.replace(/\n/g, ''), /^[A-Za-z0-9+/]+={0,2}$/);
  });

  it('tolerates CRLF, stray whitespace and a PEM PKCS7 wrapper', () => {
    const body = certsOnlyPkcs7Base64([pki.rootCertPem]);
    const crlf = `  ${body.replace(/\n/g, '\r\n')}\r\n`;
    assert.deepEqual(parsePkcs7Certs(crlf), [pki.rootCertPem]);
    const wrapped = `-----BEGIN PKCS7-----\r\n${body.replace(/\n/g, '\r\n')}\r\n-----END PKCS7-----\r\n`;
    assert.deepEqual(parsePkcs7Certs(wrapped), [pki.rootCertPem]);
  });

  it('rejects bodies that are not a certs-only PKCS#7', () => {
    assert.throws(() => parsePkcs7Certs(''), /not base64/);
    assert.throws(() => parsePkcs7Certs('<html>nope</html>'), /not base64/);
    assert.throws(() => parsePkcs7Certs(Buffer.from('hello world').toString('base64')), /PKCS#7/);
    // a certificate is valid DER but not SignedData
    assert.throws(() => parsePkcs7Certs(der(pki.rootCertPem).toString('base64')), /SignedData/);
    assert.throws(() => certsOnlyPkcs7Base64([]), /no certificates/);
    assert.throws(() => certsOnlyPkcs7Base64(['not a pem']), /no certificates/);
  });

  it('is read by openssl pkcs7 -print_certs', { skip: !hasOpenssl && 'openssl not installed' }, async () => {
    const file = path.join(tmp, 'cacerts.p7b');
    await writeFile(file, Buffer.from(certsOnlyPkcs7Base64([pki.rootCertPem, pki.intermediateCertPem]), 'base64'));
    const out = execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-in', file, '-print_certs'], { encoding: 'utf8' });
    assert.match(out, /subject=.*CN\s*=\s*ctl Root CA/);
    assert.match(out, /subject=.*CN\s*=\s*ctl Intermediate CA/);
    assert.equal(out.match(/-----BEGIN CERTIFICATE-----/g)?.length, 2);
  });

  it('reads openssl-made bundles and carries EC certificates', {
    skip: !hasOpenssl && 'openssl not installed',
  }, async () => {
    const key = path.join(tmp, 'ec.key');
    const crt = path.join(tmp, 'ec.crt');
    execFileSync('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
    execFileSync('openssl', [
      'req',
      '-x509',
      '-new',
      '-key',
      key,
      '-subj',
      '/CN=ec test CA',
      '-days',
      '2',
      '-out',
      crt,
    ]);
    const ecPem = await readFile(crt, 'utf8');
    await writeFile(path.join(tmp, 'root.pem'), pki.rootCertPem);
    const p7 = execFileSync(
      'openssl',
      ['crl2pkcs7', '-nocrl', '-certfile', path.join(tmp, 'root.pem'), '-certfile', crt],
      { encoding: 'utf8' },
    );
    const certs = parsePkcs7Certs(p7); // PEM-wrapped, as openssl writes it
    assert.deepEqual(
      new Set(certs.map((c) => sha256Fingerprint(c))),
      new Set([sha256Fingerprint(pki.rootCertPem), sha256Fingerprint(ecPem)]),
    );
    const again = parsePkcs7Certs(certsOnlyPkcs7Base64([ecPem]));
    assert.deepEqual(der(again[0]), der(ecPem));
  });
});

describe('certSummary / sha256Fingerprint', () => {
  it('describes a CA for trust-on-first-use', () => {
    const s = certSummary(pki.rootCertPem);
    assert.equal(s.subject, 'O=ctl, CN=ctl Root CA');
    assert.equal(s.issuer, s.subject);
    assert.equal(s.isCa, true);
    assert.match(s.sha256, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    assert.equal(s.sha256, sha256Fingerprint(pki.rootCertPem));
    assert.match(s.notAfter, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    const yearsLeft = (Date.parse(s.notAfter) - Date.now()) / (365.25 * 86_400_000);
    assert.ok(yearsLeft > 9.9 && yearsLeft < 10.01); // calendar years vary by a leap day
    const leaf = certSummary(pki.serverCertPem);
    assert.equal(leaf.isCa, false);
    assert.equal(leaf.issuer, 'O=ctl, CN=ctl Intermediate CA');
  });

  it('fingerprints the DER with SHA-256', async () => {
    const { createHash } = await import('node:crypto');
    const hex = createHash('sha256').update(der(pki.rootCertPem)).digest('hex').toUpperCase();
    assert.equal(sha256Fingerprint(pki.rootCertPem).replace(/:/g, ''), hex);
  });
});
