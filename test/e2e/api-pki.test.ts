// Over the real HTTPS controller: a certificate openssl made under a verified CA with an externalIdClaim logs in,
// over mutual TLS, the identity its claim names; the session's flags say whether its certificate may be extended and
// whether an administrator asked for it; an ephemeral session certificate is issued but opens no session; the
// enrollment challenge verifies against /enroll/jwks. Every response is checked against OpenZiti's spec.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync, randomUUID, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { createCsr } from '../../src/protocol/csr.js';
import {
  assertError,
  assertStatus,
  createIdentity,
  unique,
  useTestController,
  type HttpHelper,
  type TestController,
} from '../helpers/controller.js';
import { mtlsRequest } from '../helpers/mtls.js';
import { opensslCa, opensslSigned } from '../helpers/openssl.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ctl-e2e-pki-'));

/** A client certificate openssl signs with `ca`, with a subjectAltName; its PEM and key. */
function opensslClient(ca: { key: string; cert: string }, cn: string, san: string): { cert: string; key: string } {
  const name = unique('client');
  writeFileSync(
    path.join(tmp, `${name}.ext`),
    `basicConstraints=critical,CA:FALSE\nextendedKeyUsage=clientAuth\nsubjectAltName=${san}\n`,
  );
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: tmp, stdio: 'ignore' });
  run(
    'req',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    `/CN=${cn}`,
  );
  run(
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    ca.cert,
    '-CAkey',
    ca.key,
    '-CAcreateserial',
    '-out',
    `${name}.crt`,
    '-days',
    '1',
    '-extfile',
    `${name}.ext`,
  );
  return {
    cert: readFileSync(path.join(tmp, `${name}.crt`), 'utf8'),
    key: readFileSync(path.join(tmp, `${name}.key`), 'utf8'),
  };
}

describe('PKI over HTTPS: external ids, session flags, session certificates, the challenge', () => {
  const env = useTestController();
  let ctl: TestController;
  let admin: HttpHelper;
  before(() => ({ ctl, admin } = env));
  const target = () => ({ baseUrl: ctl.url, caPem: ctl.caPem });

  it("a third-party certificate logs in the identity its CA's externalIdClaim names", async () => {
    const files = opensslCa(unique('hr-ca'));
    const created = await admin.post('/cas', {
      name: unique('hr'),
      certPem: files.pem,
      isAutoCaEnrollmentEnabled: false,
      isOttCaEnrollmentEnabled: false,
      isAuthEnabled: true,
      identityRoles: [],
      externalIdClaim: {
        location: 'SAN_EMAIL',
        matcher: 'SUFFIX',
        matcherCriteria: '@hr.example',
        parser: 'NONE',
        parserCriteria: null,
        index: 0,
      },
    });
    assertStatus(created, 201, 'create CA');
    const caId = created.body.data.id;
    const employee = unique('emp');
    const id = await createIdentity(admin, { name: unique('carol'), externalId: employee });
    const credential = opensslClient(files, 'carol', `email:${employee}@hr.example`);

    const unverified = await mtlsRequest(target(), credential, 'POST', '/authenticate?method=cert');
    assert.equal(unverified.status, 401, 'an unverified CA is trusted for nothing');
    const token = (await admin.get(`/cas/${caId}`)).body.data.verificationToken;
    const verified = await admin.request('POST', `/cas/${caId}/verify`, {
      body: opensslSigned(files, token, unique('verify')),
      headers: { 'content-type': 'text/plain' },
    });
    assertStatus(verified, 200, 'verify');

    for (const api of ['client', 'management'] as const) {
      const login = await mtlsRequest(target(), credential, 'POST', '/authenticate?method=cert', { api });
      assert.equal(login.status, 200, login.text);
      assert.equal(login.body.data.identity.id, id);
      assert.equal(login.body.data.isCertExtendable, false, "only this controller's certificates are extendable");
      const me = await ctl.api.as(login.body.data.token).get('/current-identity', { api });
      assert.equal(me.body.data.id, id);
    }
    const stranger = opensslClient(files, 'dave', `email:nobody-${randomUUID()}@hr.example`);
    assert.equal((await mtlsRequest(target(), stranger, 'POST', '/authenticate?method=cert')).status, 401);
  });

  it('CA auto enrollment by externalIdClaim: the identity gets the named externalId and no authenticator', async () => {
    const files = opensslCa(unique('badge-ca'));
    const caName = unique('badges');
    const created = await admin.post('/cas', {
      name: caName,
      certPem: files.pem,
      isAutoCaEnrollmentEnabled: true,
      isOttCaEnrollmentEnabled: false,
      isAuthEnabled: true,
      identityRoles: ['badge'],
      externalIdClaim: {
        location: 'SAN_URI',
        matcher: 'SCHEME',
        matcherCriteria: 'urn',
        parser: 'SPLIT',
        parserCriteria: ':',
        index: 2,
      },
    });
    assertStatus(created, 201);
    const caId = created.body.data.id;
    const token = (await admin.get(`/cas/${caId}`)).body.data.verificationToken;
    assertStatus(
      await admin.request('POST', `/cas/${caId}/verify`, {
        body: opensslSigned(files, token, unique('v')),
        headers: { 'content-type': 'text/plain' },
      }),
      200,
    );

    const badge = unique('b');
    const device = opensslClient(files, 'door-7', `URI:urn:badge:${badge}`);
    const enrolled = await mtlsRequest(target(), device, 'POST', '/enroll/ca');
    assert.equal(enrolled.status, 200, enrolled.text);
    const made = (await admin.get('/identities', { query: { filter: `externalId = "${badge}"` } })).body.data[0];
    assert.ok(made, 'the identity carries the externalId the certificate names');
    assert.equal(made.name, `${caName}-door-7`);
    assert.deepEqual(made.roleAttributes, ['badge']);
    assert.deepEqual(made.authenticators, {}, 'no authenticator: the CA certificates are the credential');
    const login = await mtlsRequest(target(), device, 'POST', '/authenticate?method=cert');
    assert.equal(login.status, 200, login.text);
    assert.equal(login.body.data.identity.id, made.id);
    // Another certificate naming the same id is the same identity: it logs in, but does not enroll again.
    const second = opensslClient(files, 'door-8', `URI:urn:badge:${badge}`);
    const again = await mtlsRequest(target(), second, 'POST', '/enroll/ca');
    assert.equal(again.status, 409, again.text);
    assert.equal(again.body.error.code, 'ENROLLMENT_IDENTITY_ALREADY_ENROLLED');
    assert.equal(
      (await mtlsRequest(target(), second, 'POST', '/authenticate?method=cert')).body.data.identity.id,
      made.id,
    );
    // A certificate that names no id cannot enroll, and nothing is made.
    const nameless = opensslClient(files, 'door-9', 'URI:https://elsewhere.example');
    const refused = await mtlsRequest(target(), nameless, 'POST', '/enroll/ca');
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.error.code, 'MISSING_CERT_CLAIM');
    assert.equal(
      (await admin.get('/identities', { query: { filter: `name = "${caName}-door-9"` } })).body.data.length,
      0,
    );
  });

  it("an enrolled cert's session is extendable, shows an extend request; its session certs open nothing", async () => {
    const id = await createIdentity(admin, { name: unique('dev'), enrollment: { ott: true } });
    const ott = (await admin.get(`/identities/${id}`)).body.data.enrollment.ott.token;
    const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    const enrolled = await ctl.api.post(
      '/enroll/ott',
      { token: ott, clientCsr: createCsr(key, 'dev') },
      { api: 'client' },
    );
    assertStatus(enrolled, 200, 'enroll');
    const credential = {
      cert: enrolled.body.data.cert as string,
      key: key.export({ type: 'pkcs8', format: 'pem' }) as string,
    };
    const login = await mtlsRequest(target(), credential, 'POST', '/authenticate?method=cert');
    assert.equal(login.status, 200, login.text);
    assert.equal(login.body.data.isCertExtendable, true);
    assert.equal(login.body.data.isCertExtendRequested, false);
    assertStatus(
      await admin.post(`/authenticators/${login.body.data.authenticatorId}/request-extend`, { rollKeys: true }),
      200,
    );
    const session = ctl.api.as(login.body.data.token).on('client');
    const current = (await session.get('/current-api-session')).body.data;
    assert.equal(current.isCertExtendRequested, true);
    assert.equal(current.isCertKeyRollRequested, true);

    const sessionKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    const made = await session.post('/current-api-session/certificates', { csr: createCsr(sessionKey, 'ephemeral') });
    assertStatus(made, 201, 'session certificate');
    assert.equal(made.body.data.cas, ctl.caPem);
    const ephemeral = {
      cert: made.body.data.certificate as string,
      key: sessionKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    };
    const refused = await mtlsRequest(target(), ephemeral, 'POST', '/authenticate?method=cert');
    assert.equal(refused.status, 401, 'a session certificate is not a credential');
    assertStatus(await session.get(`/current-api-session/certificates/${made.body.data.id}`), 200);
    assertError(
      await session.post('/current-api-session/certificates', { csr: 'garbage' }),
      400,
      'COULD_NOT_PROCESS_CSR',
      'csr',
    );
  });

  it('the enrollment challenge is signed by the key /enroll/jwks publishes', async () => {
    const jwks = await ctl.api.get('/enroll/jwks', { api: 'client' });
    assertStatus(jwks, 200);
    const jwk = jwks.body.keys[0];
    const nonce = randomUUID();
    const res = await ctl.api.post('/enroll/challenge', { keyId: jwk.kid, nonce }, { api: 'client' });
    assertStatus(res, 200, 'challenge');
    assert.equal(res.body.kid, jwk.kid);
    assert.equal(res.body.caPool, ctl.caPem);
    assert.ok(
      verify(
        'sha256',
        Buffer.from(nonce),
        createPublicKey({ key: jwk, format: 'jwk' }),
        Buffer.from(res.body.signature, 'base64'),
      ),
    );
    assertError(
      await ctl.api.post('/enroll/challenge', { keyId: 'other', nonce }, { api: 'client' }),
      400,
      'COULD_NOT_VALIDATE',
      'keyId',
    );
  });
});
