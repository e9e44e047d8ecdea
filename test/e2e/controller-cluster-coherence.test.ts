// Two controllers serving one PostgreSQL database keep API sessions, facts and signers' key sets in memory as a
// lone controller does, yet answer every request with what either wrote before it: a write through one drops what
// the other keeps at its next request (docs/architecture.md, "Several controllers on one database").
import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  assertStatus,
  createIdentity,
  createUser,
  HttpHelper,
  startTestController,
  storeUnderTest,
  unique,
  type TestController,
} from '../helpers/controller.js';
import { KeySetServer, signEs256 } from '../helpers/key-set-server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { writeTestKeyFile } from '../helpers/pki-key-file.js';

const skip = storeUnderTest() !== 'postgres' && 'PostgreSQL only';

describe('controllers sharing a database keep what they read, and drop it when the other writes', { skip }, () => {
  let tmp: string;
  let database: TestDatabase;
  let a: TestController;
  let b: TestController;
  const client = (ctl: TestController, token?: string) => new HttpHelper(ctl.url, ctl.caPem, token, 'client');

  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-cluster-coherence-'));
    const pkiKeyFile = await writeTestKeyFile(tmp);
    database = await createTestDatabase();
    const shared = { storeUrl: database.url, pkiKeyFile, sharedDatabase: true };
    a = await startTestController({ ...shared, dataDir: path.join(tmp, 'a') });
    b = await startTestController({ ...shared, dataDir: path.join(tmp, 'b'), adminPassword: a.adminPassword });
  });
  after(async () => {
    await b?.close();
    await a?.close();
    await database?.drop();
    await rm(tmp, { recursive: true, force: true });
  });

  it('a session kept by one controller is refused there at the next request once the other ends it', async () => {
    const adminA = await a.admin();
    const user = await createUser(adminA);
    const onB = client(b, await client(a).login(user.username, user.password));
    // Twice: the second answer comes from the session B keeps.
    for (let i = 0; i < 2; i++) assertStatus(await onB.get('/current-identity'), 200, 'the session, on B');
    const sessions = (await adminA.get('/api-sessions', { query: { filter: `identity.id = "${user.id}"` } })).body.data;
    assertStatus(await adminA.delete(`/api-sessions/${sessions[0].id}`), 200, 'ended on A');
    assertStatus(await onB.get('/current-identity'), 401, 'refused on B at once');
    // A change of the identity B keeps with its session: made an administrator on A, seen by B's next answer.
    const again = new HttpHelper(b.url, b.caPem, await client(b).login(user.username, user.password));
    assertStatus(await again.get('/identities'), 401, 'not an administrator yet');
    assertStatus(await again.get('/identities'), 401, 'still not');
    assertStatus(await adminA.patch(`/identities/${user.id}`, { isAdmin: true }), 200, 'made an administrator on A');
    assertStatus(await again.get('/identities'), 200, 'an administrator on B at once');
  });

  it("an external signer's new key, changed through one controller, opens a session on the other", async () => {
    const adminA = await a.admin();
    const keys = new KeySetServer();
    const [key1, key2] = [1, 2].map(() => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
    try {
      keys.serve([{ kid: 'k1', key: key1 }]);
      const issuer = `https://${unique('idp')}.example`;
      const jwksEndpoint = await keys.start();
      const signer = { name: unique('rotating'), enabled: true, issuer, audience: 'ctl', jwksEndpoint };
      const created = await adminA.post('/external-jwt-signers', signer);
      assertStatus(created, 201, 'a key-set signer, on A');
      const id = await createIdentity(adminA, { name: unique('jwt-user') });
      const exp = () => Math.floor(Date.now() / 1000) + 300;
      const token = (key: KeyObject, kid: string) =>
        signEs256(key, { kid }, { iss: issuer, aud: 'ctl', sub: id, exp: exp() });
      const login = async (ctl: TestController, jwt: string) => {
        const headers = { authorization: `Bearer ${jwt}` };
        return (await client(ctl).request('POST', '/authenticate', { query: { method: 'ext-jwt' }, headers })).status;
      };
      for (const ctl of [a, b]) assert.equal(await login(ctl, await token(key1, 'k1')), 200, 'k1 on both: kept');
      // The provider rotates its keys, and the signer is updated through A.
      keys.serve([{ kid: 'k2', key: key2 }]);
      const patched = await adminA.patch(`/external-jwt-signers/${created.body.data.id}`, { audience: 'ctl' });
      assertStatus(patched, 200, 'the signer updated on A');
      // Within the key sets' refetch interval: had B not heard of the change, it would know no k2 and keep k1.
      assert.equal(await login(b, await token(key2, 'k2')), 200, 'the new key honoured by B at once');
      assert.equal(await login(b, await token(key1, 'k1')), 401, 'the old key no longer honoured by B');
    } finally {
      keys.server.close();
    }
  });
});
