import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCsr, CsrError, parseCsr } from '../../protocol/csr.js';
import { children, readOne, seq } from '../../protocol/der.js';
import { cachedTestKey, sharedTestPki } from '../../../test/helpers/fixtures.js';
import { ApiError } from '../../protocol/errors.js';
import { acceptCsr, csrStep, identitySpiffeId, issueClientCert } from './issue.js';
import { loadOrCreatePki, type Pki } from './pki.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ctl-issue-'));
const file = (name: string, text: string) => {
  const p = path.join(tmp, name);
  writeFileSync(p, text);
  return p;
};
const openssl = (...args: string[]) =>
  execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * A CSR made by the openssl binary (a client nobody here wrote) for a key of the given kind made by openssl too
 * (fresh, except the big RSA keys, made once per machine: seconds each).
 */
function opensslCsr(name: string, keyArgs: string[]): string {
  const make = (out: string) => void openssl('genpkey', ...keyArgs, '-out', out);
  let keyFile = path.join(tmp, `${name}.key`);
  if (name === 'rsa-4096') keyFile = cachedTestKey('openssl-rsa-4096', make);
  else make(keyFile);
  return openssl('req', '-new', '-key', keyFile, '-subj', `/CN=${name}/O=test`);
}

const rsa = (bits: number) => generateKeyPairSync('rsa', { modulusLength: bits }).privateKey;
const ec = (namedCurve: string) => generateKeyPairSync('ec', { namedCurve }).privateKey;

let pki: Pki;
before(async () => {
  pki = await loadOrCreatePki(await sharedTestPki(), { hosts: ['127.0.0.1'] });
});

describe('CSRs: made here and by openssl, parsed and verified', () => {
  for (const [label, key] of [
    ['RSA 2048', () => rsa(2048)],
    ['EC P-256', () => ec('prime256v1')],
    ['EC P-384', () => ec('secp384r1')],
  ] as const) {
    it(`createCsr (${label}) is accepted by openssl and by parseCsr`, () => {
      const csr = createCsr(key(), 'laptop');
      assert.match(openssl('req', '-in', file(`ours-${label}.csr`, csr), '-verify', '-noout'), /^$/);
      const parsed = acceptCsr(csr);
      assert.equal(parsed.publicKey.asymmetricKeyType, label.startsWith('RSA') ? 'rsa' : 'ec');
    });
  }

  for (const [label, args] of [
    ['rsa-2048', ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048']],
    ['rsa-4096', ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:4096']],
    ['ec-p256', ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256']],
    ['ec-p384', ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-384']],
  ] as const) {
    it(`an openssl CSR (${label}) is accepted and certified; openssl verifies the chain`, () => {
      const csr = acceptCsr(opensslCsr(label, [...args]));
      const issued = issueClientCert(pki, csr, { uris: [identitySpiffeId(pki.trustDomain, 'id-1')], now: new Date() });
      const leaf = new X509Certificate(issued.leafPem);
      assert.equal(leaf.subject, `CN=${label}\nO=test`);
      assert.equal(leaf.subjectAltName, `URI:spiffe://${pki.trustDomain}/identity/id-1`);
      assert.ok(leaf.verify(new X509Certificate(pki.intermediateCertPem).publicKey));
      assert.equal(leaf.fingerprint.replace(/:/g, '').toLowerCase(), issued.fingerprint);
      const text = openssl('x509', '-in', file(`${label}.crt`, issued.leafPem), '-noout', '-text');
      assert.match(text, /TLS Web Client Authentication/);
      assert.match(text, /Digital Signature, Key Encipherment, Data Encipherment/);
      assert.match(text, /CA:FALSE/);
      const verified = openssl(
        'verify',
        '-CAfile',
        file('root.pem', pki.rootCertPem),
        '-untrusted',
        file('int.pem', pki.intermediateCertPem),
        '-purpose',
        'sslclient',
        file(`${label}-leaf.crt`, issued.leafPem),
      );
      assert.match(verified, /OK/);
    });
  }

  it('the chain holds the leaf then the intermediate, never the root', () => {
    const issued = issueClientCert(pki, acceptCsr(createCsr(ec('prime256v1'), 'x')), { uris: [], now: new Date() });
    const blocks = issued.chainPem.match(/-----BEGIN CERTIFICATE-----/g) ?? [];
    assert.equal(blocks.length, 2);
    assert.ok(issued.chainPem.includes(pki.intermediateCertPem.trim()));
    assert.ok(!issued.chainPem.includes(pki.rootCertPem.trim()));
  });

  it('validity is a year, but never beyond the intermediate', () => {
    const now = new Date();
    const leaf = new X509Certificate(
      issueClientCert(pki, acceptCsr(createCsr(ec('prime256v1'), 'x')), { uris: [], now }).leafPem,
    );
    const days = (Date.parse(leaf.validTo) - now.getTime()) / 86_400_000;
    assert.ok(days > 364 && days <= 366, `validity ${days} days`);
    const late = new Date(Date.parse(new X509Certificate(pki.intermediateCertPem).validTo) - 86_400_000);
    const capped = new X509Certificate(
      issueClientCert(pki, acceptCsr(createCsr(ec('prime256v1'), 'x')), { uris: [], now: late }).leafPem,
    );
    assert.ok(Date.parse(capped.validTo) <= Date.parse(new X509Certificate(pki.intermediateCertPem).validTo));
  });
});

describe('CSRs refused', () => {
  const refuses = (pem: string, pattern: RegExp) =>
    assert.throws(
      () => acceptCsr(pem),
      (err: unknown) => err instanceof CsrError && pattern.test(err.message),
    );

  it('weak and oversized RSA keys', () => {
    refuses(createCsr(rsa(1024), 'weak'), /1024 bits, fewer than the 2048/);
    refuses(opensslCsr('rsa-1024', ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:1024']), /fewer than the 2048/);
    const big = cachedTestKey('rsa-4160', (out) =>
      writeFileSync(out, rsa(4160).export({ type: 'pkcs8', format: 'pem' })),
    );
    refuses(createCsr(createPrivateKey(readFileSync(big, 'utf8')), 'big'), /more than the 4096/);
  });

  it('EC curves other than P-256 and P-384, and other key types', () => {
    refuses(createCsr(ec('secp521r1'), 'p521'), /P-256 or P-384/);
    refuses(opensslCsr('ed25519', ['-algorithm', 'ED25519']), /not accepted|RSA or EC/);
  });

  it('garbage, certificates instead of CSRs, two blocks, and tampering', () => {
    refuses('', /no PEM block/);
    refuses('hello', /no PEM block/);
    refuses(pki.rootCertPem, /expected a PEM CERTIFICATE REQUEST, found CERTIFICATE/);
    const good = createCsr(ec('prime256v1'), 'a');
    refuses(good + good, /one PEM block/);
    refuses('-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n', /cannot be parsed/);
    // Another key's signature over this request: the requester does not hold the key it asks a certificate for.
    const [infoA, alg] = children(readOne(parseCsrDer(createCsr(ec('prime256v1'), 'same'))).content);
    const [, , sigB] = children(readOne(parseCsrDer(createCsr(ec('prime256v1'), 'same'))).content);
    assert.throws(() => parseCsr(pem(seq(infoA.raw, alg.raw, sigB.raw))), /signature does not verify/);
  });

  it('a SHA-1 signed CSR', () => {
    const keyFile = path.join(tmp, 'sha1.key');
    openssl('genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', keyFile);
    refuses(openssl('req', '-new', '-sha1', '-key', keyFile, '-subj', '/CN=sha1'), /not accepted/);
  });
});

function parseCsrDer(p: string): Buffer {
  return Buffer.from(p.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
}
function pem(der: Buffer): string {
  return `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
}

describe('csrStep', () => {
  it('turns a CSR refusal into COULD_NOT_PROCESS_CSR naming the member, and lets other errors through', () => {
    assert.equal(
      csrStep('csr', () => 7),
      7,
    );
    assert.throws(
      () => csrStep('clientCsr', () => acceptCsr('not a csr')),
      (err: unknown) =>
        err instanceof ApiError &&
        err.code === 'COULD_NOT_PROCESS_CSR' &&
        (err.cause as { field?: string; value?: string }).field === 'clientCsr' &&
        (err.cause as { value?: string }).value === '<csr>',
    );
    assert.throws(
      () =>
        csrStep(
          (e) => (e.message.startsWith('server') ? 'serverCertCsr' : 'certCsr'),
          () => {
            throw new CsrError('server CSR: bad');
          },
        ),
      (err: unknown) => err instanceof ApiError && (err.cause as { field?: string }).field === 'serverCertCsr',
    );
    const other = new Error('disk full');
    assert.throws(
      () =>
        csrStep('csr', () => {
          throw other;
        }),
      (err: unknown) => err === other,
    );
  });
});
