// Several controllers on one database, one after the other (a second live controller on one database is still
// refused): with the same --pki-key-file they are one trust root, and what the first issued the second accepts.
import assert from 'node:assert/strict';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCsr } from '../../src/protocol/csr.js';
import { startController } from '../../src/controller/index.js';
import {
  assertStatus,
  createIdentity,
  HttpHelper,
  serverCertificatePem,
  startTestController,
  storeUnderTest,
  unique,
  type TestController,
} from '../helpers/controller.js';
import { jsonItems, parseJsonOutput, withLoggedInCli } from '../helpers/cli.js';
import { TEST_PASSWORD_COST } from '../helpers/fixtures.js';
import { mtlsRequest } from '../helpers/mtls.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { writeTestKeyFile } from '../helpers/pki-key-file.js';

describe(`controllers sharing one database and one key file (${storeUnderTest()})`, () => {
  let tmp: string;
  let database: TestDatabase | undefined;
  let storeUrl: string;
  let keyFile: string;
  let a: TestController | undefined;
  let b: TestController | undefined;

  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-cluster-'));
    if (storeUnderTest() === 'postgres') database = await createTestDatabase();
    storeUrl = database?.url ?? path.join(tmp, 'shared.db');
    keyFile = await writeTestKeyFile(tmp);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
    await rm(tmp, { recursive: true, force: true });
  });

  const start = (name: string, adminPassword?: string) =>
    startTestController({
      dataDir: path.join(tmp, name),
      storeUrl,
      pkiKeyFile: keyFile,
      advertise: [`${name}.ctl.test`],
      adminPassword,
    });

  /** An identity with a one-time-token enrollment: its id and enrollment JWT. */
  async function withEnrollment(admin: HttpHelper): Promise<{ name: string; jwt: string }> {
    const name = unique('member');
    const id = await createIdentity(admin, { name, enrollment: { ott: true } });
    return { name, jwt: (await admin.get(`/identities/${id}`)).body.data.enrollment.ott.jwt };
  }

  /** Enrolls on `ctl` with the token the JWT carries (as an SDK does); the certificate and key it gets. */
  async function enroll(ctl: TestController, jwt: string, name: string): Promise<{ cert: string; key: string }> {
    const token = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()).jti as string;
    const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    const res = await ctl.api.post('/enroll/ott', { token, clientCsr: createCsr(key, name) }, { api: 'client' });
    assertStatus(res, 200, `enroll ${name}`);
    return { cert: res.body.data.cert, key: key.export({ type: 'pkcs8', format: 'pem' }) as string };
  }

  it('the second serves the same CA bundle and accepts the certificates, JWTs and sessions of the first', async () => {
    a = await start('a');
    const adminA = await a.admin();
    const enrolledOnA = await withEnrollment(adminA);
    const credentialFromA = await enroll(a, enrolledOnA.jwt, enrolledOnA.name);
    const pendingFromA = await withEnrollment(adminA);
    const serverA = new X509Certificate(await serverCertificatePem(a.url, a.caPem));
    const listedOnA = (await adminA.get('/controllers')).body.data;
    assert.equal(listedOnA.length, 1);
    assert.equal(listedOnA[0].isOnline, true);
    await a.close();

    b = await start('b', a.adminPassword);
    assert.equal(b.caPem, a.caPem, 'one CA bundle');
    const serverB = new X509Certificate(await serverCertificatePem(b.url, b.caPem));
    assert.notEqual(serverB.fingerprint256, serverA.fingerprint256, 'each controller has its own server certificate');
    assert.ok(serverB.checkHost('b.ctl.test'), 'for its own names');
    assert.equal(serverB.checkHost('a.ctl.test'), undefined);

    // The session made on the first controller.
    const me = await new HttpHelper(b.url, b.caPem, adminA.token).get('/current-identity');
    assertStatus(me, 200, 'a session token of the first controller');
    // The client certificate the first controller issued logs in on the second.
    const onB = { baseUrl: b.url, caPem: b.caPem };
    const login = await mtlsRequest(onB, credentialFromA, 'POST', '/authenticate?method=cert');
    assert.equal(login.status, 200, login.text);
    // An enrollment JWT the first controller issued enrolls on the second, and the certificate it gets works.
    const credentialFromB = await enroll(b, pendingFromA.jwt, pendingFromA.name);
    const loginB = await mtlsRequest(onB, credentialFromB, 'POST', '/authenticate?method=cert');
    assert.equal(loginB.status, 200, loginB.text);
  });

  it('lists both controllers, the stopped one offline within 15 s', async () => {
    assert.ok(b, 'runs after the first test');
    const admin = await b.admin();
    const rows = async () => (await admin.get('/controllers')).body.data as Array<Record<string, any>>;
    const listed = await rows();
    assert.equal(listed.length, 2);
    const self = listed.find((row) => row.apiAddresses['edge-management'][0].url.startsWith(b!.running.publicUrl));
    assert.ok(self, 'the answering controller is listed with its address');
    assert.equal(self.isOnline, true);
    assert.equal(self.name, 'b.ctl.test', 'named by its first advertised name');
    const served = new X509Certificate(await serverCertificatePem(b.url, b.caPem));
    assert.equal(self.fingerprint, served.fingerprint.replace(/:/g, '').toLowerCase());
    const other = listed.find((row) => row !== self)!;
    const deadline = Date.now() + 20_000;
    let seen = other.isOnline as boolean;
    while (seen && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      seen = (await rows()).find((row) => row.id === other.id)!.isOnline;
    }
    assert.equal(seen, false, `${other.name} (stopped) shown offline`);
    assert.ok(Date.now() - Date.parse(other.lastSeenAt) >= 15_000 - 1000, 'not before 15 s without a heartbeat');

    const cli = await withLoggedInCli(b);
    try {
      const listed = await cli.expect(0, ['controller', 'list', '-o', 'json'], { process: true });
      const json = jsonItems(parseJsonOutput(listed));
      assert.deepEqual(
        json.map((row) => [row.id, row.isOnline]).sort(),
        [
          [self.id, true],
          [other.id, false],
        ].sort(),
      );
      const table = (await cli.expect(0, ['controller', 'list'], { process: true })).stdout;
      assert.match(table, /ID\s+NAME\s+ONLINE\s+LAST SEEN\s+MANAGEMENT API/);
      const advertised = b.running.publicUrl.replace(/[.]/g, '\\.');
      assert.match(table, new RegExp(`${self.id}.*true.*${advertised}/edge/management/v1`));
      assert.match(table, new RegExp(`${other.id}.*false`));
    } finally {
      await cli.cleanup();
    }
  });

  it('a controller that ran alone keeps its CA bundle and its row when it starts sharing its database', async () => {
    const own = storeUnderTest() === 'postgres' ? await createTestDatabase() : undefined;
    const options = { dataDir: path.join(tmp, 'was-alone'), storeUrl: own?.url ?? path.join(tmp, 'was-alone.db') };
    try {
      const alone = await startTestController(options);
      const before = (await (await alone.admin()).get('/controllers')).body.data;
      await alone.close();
      const restart = { ...options, pkiKeyFile: keyFile, adminPassword: alone.adminPassword };
      const sharing = await startTestController(restart);
      try {
        assert.equal(sharing.caPem, alone.caPem);
        const after = (await (await sharing.admin()).get('/controllers')).body.data;
        assert.deepEqual(
          after.map((row: { id: string }) => row.id),
          before.map((row: { id: string }) => row.id),
        );
      } finally {
        await sharing.close();
      }
    } finally {
      await own?.drop();
    }
  });

  it('refuses a start with another key file, or with none, before serving', async () => {
    await b?.close();
    const wrongKey = path.join(tmp, 'wrong.key');
    await writeFile(wrongKey, 'another-secret-of-forty-eight-bytes-for-the-test', { mode: 0o600 });
    const cheap = { adminPassword: 'unused', passwordCost: TEST_PASSWORD_COST };
    const common = { port: 0, dataDir: path.join(tmp, 'c'), storeUrl, ...cheap };
    const wrong = startController({ ...common, pkiKeyFile: wrongKey });
    await assert.rejects(wrong, /CA keys in the database do not open with --pki-key-file .*wrong\.key/);
    await assert.rejects(startController(common), /holds the network's PKI.*start with --pki-key-file/);
  });
});
