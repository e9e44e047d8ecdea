import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Store } from '../store/store.js';
import { PkiKeyMismatchError, readPkiKeyFile, type PkiKey } from './key-file.js';
import { loadOrCreatePki } from './pki.js';
import { loadOrCreateSharedPki, refuseSharedPkiWithoutKey } from './shared-pki.js';

let tmp: string;
let key: PkiKey;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-shared-pki-'));
  key = await keyIn('pki.key', 'k'.repeat(48));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function keyIn(name: string, secret: string): Promise<PkiKey> {
  const file = path.join(tmp, name);
  await writeFile(file, secret, { mode: 0o600 });
  return readPkiKeyFile(file);
}

async function withStore<T>(work: (store: Store) => Promise<T>): Promise<T> {
  const store = await Store.open({ sqlite: ':memory:' });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

describe('the PKI kept in the database', () => {
  it('is made once and shared: one CA bundle, a server certificate per controller for its own names', async () => {
    await withStore(async (store) => {
      await refuseSharedPkiWithoutKey(store); // an empty database holds none: a controller alone may start
      const a = await loadOrCreateSharedPki(store, key, { pkiDir: path.join(tmp, 'a'), hosts: ['a.example.test'] });
      const b = await loadOrCreateSharedPki(store, key, { pkiDir: path.join(tmp, 'b'), hosts: ['b.example.test'] });
      assert.equal(b.caBundlePem, a.caBundlePem);
      assert.equal(b.intermediateKeyPem, a.intermediateKeyPem);
      assert.equal(b.trustDomain, a.trustDomain);
      assert.notEqual(b.serverCertPem, a.serverCertPem);
      const serverB = new X509Certificate(b.serverCertPem);
      assert.ok(serverB.checkHost('b.example.test'));
      assert.equal(serverB.checkHost('a.example.test'), undefined);
      const intermediate = new X509Certificate(a.intermediateCertPem);
      assert.ok(serverB.verify(intermediate.publicKey), "b's certificate is signed by the shared intermediate");
      const row = await store.repo('controller-pki').get('network');
      assert.doesNotMatch(JSON.stringify(row), /PRIVATE KEY/, 'no private key in clear in the database');
      const refusal = /holds the network's PKI.*start with --pki-key-file \(or CTL_PKI_KEY_FILE\)/;
      await assert.rejects(refuseSharedPkiWithoutKey(store), refusal);
    });
  });

  it('refuses another key before writing anything', async () => {
    await withStore(async (store) => {
      await loadOrCreateSharedPki(store, key, { pkiDir: path.join(tmp, 'c'), hosts: ['localhost'] });
      const before = await store.repo('controller-pki').get('network');
      const wrong = await keyIn('wrong.key', 'w'.repeat(48));
      const other = { pkiDir: path.join(tmp, 'd'), hosts: ['localhost'] };
      await assert.rejects(loadOrCreateSharedPki(store, wrong, other), PkiKeyMismatchError);
      assert.deepEqual(await store.repo('controller-pki').get('network'), before);
    });
  });

  it('replaces an intermediate near expiry once for every controller, and keeps trusting the old one', async () => {
    const made = new Date('2030-06-01T00:00:00Z');
    const nearExpiry = new Date(made.getTime() + (5 * 365 - 10) * 86_400_000);
    await withStore(async (store) => {
      const at = (now: Date) => ({ hosts: ['localhost'], now });
      const first = await loadOrCreateSharedPki(store, key, { pkiDir: path.join(tmp, 'r1'), ...at(made) });
      const later = at(nearExpiry);
      const rotated = await loadOrCreateSharedPki(store, key, { pkiDir: path.join(tmp, 'r1'), ...later });
      assert.notEqual(rotated.intermediateCertPem, first.intermediateCertPem);
      assert.equal(rotated.rootCertPem, first.rootCertPem);
      assert.deepEqual(rotated.previousIntermediateCertPems, [first.intermediateCertPem]);
      assert.ok(rotated.caBundlePem.includes(first.intermediateCertPem), 'what the old one issued is trusted');
      const other = await loadOrCreateSharedPki(store, key, { pkiDir: path.join(tmp, 'r2'), ...later });
      assert.equal(other.intermediateCertPem, rotated.intermediateCertPem, 'rotated once, not once per controller');
      assert.equal(other.caBundlePem, rotated.caBundlePem);
    });
  });

  it('adopts the CA of a controller that ran alone, so its clients keep their trust', async () => {
    const dir = path.join(tmp, 'alone');
    const alone = await loadOrCreatePki(dir, { hosts: ['localhost'] });
    await withStore(async (store) => {
      const shared = await loadOrCreateSharedPki(store, key, { pkiDir: dir, hosts: ['localhost'] });
      assert.equal(shared.caBundlePem, alone.caBundlePem);
      assert.equal(shared.trustDomain, alone.trustDomain);
      const other = await loadOrCreateSharedPki(store, key, { pkiDir: path.join(tmp, 'joins'), hosts: ['localhost'] });
      assert.equal(other.rootCertPem, alone.rootCertPem);
    });
  });
});
