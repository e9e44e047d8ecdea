// What one controller on a database signs, another checks. An enrollment JWT is signed by the controller that
// issued it: any other serves that controller's key (its JWK set, each key with its certificate) and the CA bundle
// the certificate chains to, so a client checks the JWT with whichever answers, the issuer stopped, and enrolls
// there. A session token made on one is taken by another (an SDK passes it to whichever controller it asks).
import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync, type JsonWebKey, X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { decodeProtectedHeader, type JWK, jwtVerify } from 'jose';
import { createCsr } from '../../src/protocol/csr.js';
import { parsePkcs7Certs } from '../../src/protocol/pkcs7.js';
import {
  assertStatus,
  createIdentity,
  createUser,
  HttpHelper,
  randomPassword,
  startTestController,
  storeUnderTest,
  type TestController,
  unique,
} from '../helpers/controller.js';
import { mtlsRequest } from '../helpers/mtls.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { writeTestKeyFile } from '../helpers/pki-key-file.js';

/** Whether `leaf` chains to the bundle: issued and signed by one of its certificates. */
function chainsTo(leaf: X509Certificate, bundle: X509Certificate[]): boolean {
  return bundle.some((ca) => leaf.checkIssued(ca) && leaf.verify(ca.publicKey));
}

describe(`tokens signed by one controller, checked by another (${storeUnderTest()})`, () => {
  let tmp: string;
  let database: TestDatabase | undefined;
  const running: TestController[] = [];

  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-cluster-enroll-'));
    if (storeUnderTest() === 'postgres') database = await createTestDatabase();
  });
  // On SQLite one controller holds the file at a time: each case's are stopped before the next, whatever happened.
  afterEach(async () => {
    if (!database) for (const ctl of running) await ctl.close();
  });
  after(async () => {
    for (const ctl of running) await ctl.close();
    await database?.drop();
    await rm(tmp, { recursive: true, force: true });
  });

  /** A controller on the shared database (on SQLite, where two are not served at once, one after the other). */
  const adminPassword = randomPassword();
  const start = async (name: string) => {
    const keyFile = await writeTestKeyFile(tmp);
    const ctl = await startTestController({
      dataDir: path.join(tmp, name),
      storeUrl: database?.url ?? path.join(tmp, 'shared.db'),
      pkiKeyFile: keyFile,
      sharedDatabase: Boolean(database),
      adminPassword,
    });
    running.push(ctl);
    return ctl;
  };

  it("the issuer stopped, the other serves its key and CA bundle, and the JWT's token enrolls there", async () => {
    const a = await start('a');
    const name = unique('enrolled-elsewhere');
    const admin = await a.admin();
    const id = await createIdentity(admin, { name, enrollment: { ott: true } });
    const jwt = (await admin.get(`/identities/${id}`)).body.data.enrollment.ott.jwt as string;
    // On PostgreSQL both run a while together; then the issuer stops, and only the other is there to ask. On
    // SQLite, whose file one controller holds at a time, the issuer stops first.
    if (!database) await a.close();
    const b = await start('b');
    await a.close();

    const cacerts = await b.api.get('/.well-known/est/cacerts', { api: 'client', headers: { accept: '*/*' } });
    assertStatus(cacerts, 200, 'the CA bundle');
    const bundle = parsePkcs7Certs(cacerts.text).map((pem) => new X509Certificate(pem));
    const jwks = await b.api.get('/enroll/jwks', { api: 'client' });
    assertStatus(jwks, 200, 'the key set');
    const { kid } = decodeProtectedHeader(jwt);
    const jwk = (jwks.body.keys as Array<JWK & { x5c?: string[] }>).find((key) => key.kid === kid);
    assert.ok(jwk, `the key set of the second serves the key of the first (kid ${kid})`);
    const signer = new X509Certificate(Buffer.from(jwk.x5c![0], 'base64'));
    assert.ok(chainsTo(signer, bundle), 'its certificate chains to the CA bundle the second serves');
    assert.ok(
      signer.publicKey.equals(createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' })),
      'the key is the certificate’s',
    );
    const { payload } = await jwtVerify(jwt, signer.publicKey, { algorithms: ['RS256'] });
    assert.equal(payload.sub, id);

    const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    const enrolled = await b.api.post(
      '/enroll/ott',
      { token: payload.jti, clientCsr: createCsr(key, name) },
      { api: 'client' },
    );
    assertStatus(enrolled, 200, 'enrolled on the second');
    const credential = { cert: enrolled.body.data.cert, key: key.export({ type: 'pkcs8', format: 'pem' }) as string };
    const login = await mtlsRequest(
      { baseUrl: b.url, caPem: b.caPem },
      credential,
      'POST',
      '/authenticate?method=cert',
    );
    assert.equal(login.status, 200, login.text);
  });

  it('a session token made on one controller is taken by another', async () => {
    const a = await start('c');
    const admin = await a.admin();
    const user = await createUser(admin);
    const made = async (path: string, body: Record<string, unknown>) => {
      const res = await admin.post(path, { name: unique('tokens'), ...body });
      assertStatus(res, 201, path);
      return res.body.data.id as string;
    };
    const service = await made('/services', { encryptionRequired: true });
    await made('/service-policies', {
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: [`@${user.id}`],
      serviceRoles: [`@${service}`],
    });
    await made('/edge-routers', {});
    await made('/edge-router-policies', {
      semantic: 'AnyOf',
      identityRoles: [`@${user.id}`],
      edgeRouterRoles: ['#all'],
    });
    await made('/service-edge-router-policies', {
      semantic: 'AnyOf',
      serviceRoles: [`@${service}`],
      edgeRouterRoles: ['#all'],
    });
    const apiSession = await new HttpHelper(a.url, a.caPem, undefined, 'client').login(user.username, user.password);
    const onA = new HttpHelper(a.url, a.caPem, apiSession, 'client');
    const created = await onA.post('/sessions', { serviceId: service, type: 'Dial' });
    assertStatus(created, 201, 'a session made on the first');
    if (!database) await a.close();

    const b = await start('d');
    const onB = new HttpHelper(b.url, b.caPem, apiSession, 'client');
    const headers = { 'session-token': created.body.data.token as string };
    assertStatus(
      await onB.get(`/services/${service}/edge-routers`, { headers }),
      200,
      "the first's token on the second",
    );
    const forged = { 'session-token': `${headers['session-token'].slice(0, -4)}AAAA` };
    assertStatus(await onB.get(`/services/${service}/edge-routers`, { headers: forged }), 401, 'a damaged one is not');
  });
});
