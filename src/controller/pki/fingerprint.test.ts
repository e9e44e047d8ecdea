import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sha1FingerprintHex, sha256Fingerprint } from './fingerprint.js';
import { loadOrCreatePki } from './pki.js';
import type { Pki } from './pki.js';

let tmp: string;
let pki: Pki;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-fp-'));
  pki = await loadOrCreatePki(tmp, { hosts: ['localhost'] });
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

it('sha1FingerprintHex is lowercase hex SHA-1 of the DER', () => {
  const raw = new X509Certificate(pki.serverCertPem).raw;
  const fp = sha1FingerprintHex(pki.serverCertPem);
  assert.match(fp, /^[0-9a-f]{40}$/);
  assert.equal(fp, createHash('sha1').update(raw).digest('hex'));
  // a chain PEM fingerprints its first (leaf) certificate
  assert.equal(sha1FingerprintHex(pki.serverChainPem), fp);
});

it('sha256Fingerprint is colon-separated uppercase hex', () => {
  const raw = new X509Certificate(pki.rootCertPem).raw;
  const expected = createHash('sha256').update(raw).digest('hex').toUpperCase().match(/../g)!.join(':');
  assert.equal(sha256Fingerprint(pki.rootCertPem), expected);
});

it('rejects non-certificates', () => {
  assert.throws(() => sha1FingerprintHex('nope'));
  assert.throws(() => sha256Fingerprint(''));
});
