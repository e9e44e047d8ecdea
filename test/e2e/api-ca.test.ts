// A third-party CA through the real HTTPS controller: created (unverified), its certificates refused for ottca
// enrollment and for authentication until verified; verified with an openssl-signed certificate; then an identity
// enrolls with a certificate of the CA (ottca, mutual TLS) and logs in with it, until the CA stops allowing
// authentication. Deleting the CA takes its enrollments. Every response is checked against OpenZiti's spec.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { jwtVerify } from 'jose';
import { before, describe, it } from 'node:test';
import {
  assertError,
  assertStatus,
  createIdentity,
  serverCertificatePem,
  useTestController,
  unique,
  type HttpHelper,
  type TestController,
} from '../helpers/controller.js';
import { mtlsRequest } from '../helpers/mtls.js';
import { opensslCa, opensslSigned, opensslSignedKey } from '../helpers/openssl.js';

describe('a third-party CA: verify, ottca enrollment, certificate authentication (HTTPS)', () => {
  const env = useTestController();
  let ctl: TestController;
  let admin: HttpHelper;
  before(() => ({ ctl, admin } = env));

  it('goes from unverified (trusted for nothing) to verified, then enrolls and logs in its certificates', async () => {
    const target = { baseUrl: ctl.url, caPem: ctl.caPem };
    const files = opensslCa(unique('corp-ca'));
    const created = await admin.post('/cas', {
      name: unique('corp'),
      certPem: files.pem,
      isAutoCaEnrollmentEnabled: false,
      isOttCaEnrollmentEnabled: true,
      isAuthEnabled: true,
      identityRoles: ['corp'],
    });
    assertStatus(created, 201, 'create CA');
    const caId = created.body.data.id as string;
    const detail = (await admin.get(`/cas/${caId}`)).body.data;
    assert.equal(detail.isVerified, false);

    const name = unique('corp-device');
    const identityId = await createIdentity(admin, { name, enrollment: { ottca: caId } });
    const enrollments = (await admin.get(`/identities/${identityId}/enrollments`)).body.data;
    assert.equal(enrollments.length, 1);
    assert.equal(enrollments[0].method, 'ottca');
    assert.equal(enrollments[0].caId, caId);
    const shown = (await admin.get(`/identities/${identityId}`)).body.data.enrollment.ottca;
    assert.deepEqual(
      [shown.caId, shown.ca.id, shown.ca.entity],
      [caId, caId, 'cas'],
      'the identity shows the CA of its ottca enrollment',
    );
    const token = enrollments[0].token as string;
    const device = { cert: opensslSigned(files, name, name), key: opensslSignedKey(name) };

    // Unverified: neither enrollment nor authentication.
    const early = await mtlsRequest(target, device, 'POST', '/enroll/ottca', { json: { token } });
    assert.equal(early.status, 400, early.text);
    assert.equal(early.body.error.code, 'ENROLLMENT_CA_NOT_VALID');
    assert.equal((await mtlsRequest(target, device, 'POST', '/authenticate?method=cert')).status, 401);

    const verified = await admin.request('POST', `/cas/${caId}/verify`, {
      body: opensslSigned(files, detail.verificationToken, unique('verification')),
      headers: { 'content-type': 'text/plain' },
    });
    assertStatus(verified, 200, 'verify');

    // A certificate of another CA is not this enrollment's.
    const stranger = opensslCa(unique('stranger-ca'));
    const strangerName = unique('stranger');
    const wrong = await mtlsRequest(
      target,
      { cert: opensslSigned(stranger, strangerName), key: opensslSignedKey(strangerName) },
      'POST',
      '/enroll/ottca',
      { json: { token } },
    );
    assert.equal(wrong.body.error.code, 'ENROLLMENT_CA_NOT_VALID');
    assert.equal(
      (await mtlsRequest(target, undefined, 'POST', '/enroll/ottca', { json: { token } })).body.error.code,
      'INVALID_CLIENT_CERT',
    );

    const enrolled = await mtlsRequest(target, device, 'POST', '/enroll/ottca', { json: { token } });
    assert.equal(enrolled.status, 200, enrolled.text);
    const auth = (await admin.get(`/identities/${identityId}`)).body.data.authenticators.cert;
    assert.ok(auth.fingerprint);
    assert.equal((await admin.get(`/authenticators/${auth.id}`)).body.data.isIssuedByNetwork, false);
    assert.equal(
      (await mtlsRequest(target, device, 'POST', '/enroll/ottca', { json: { token } })).body.error.code,
      'INVALID_ENROLLMENT_TOKEN',
    );

    const login = await mtlsRequest(target, device, 'POST', '/authenticate?method=cert');
    assert.equal(login.status, 200, login.text);
    assert.equal(login.body.data.identity.name, name);

    // Another certificate of the CA belongs to nobody.
    const otherName = unique('unenrolled');
    const other = await mtlsRequest(
      target,
      { cert: opensslSigned(files, otherName), key: opensslSignedKey(otherName) },
      'POST',
      '/authenticate?method=cert',
    );
    assert.equal(other.status, 401);
    assert.match(other.body.error.message, /belongs to no identity/);

    // Reverting the authenticator: a CA's certificate becomes an ottca enrollment for that CA, and stops working.
    const reverted = await admin.post(`/authenticators/${auth.id}/re-enroll`, {
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    assertStatus(reverted, 201, 're-enroll');
    const back = (await admin.get(`/enrollments/${reverted.body.data.id}`)).body.data;
    assert.equal(back.method, 'ottca');
    assert.equal(back.caId, caId);
    assert.equal(back.ca.id, caId);
    assert.equal((await mtlsRequest(target, device, 'POST', '/authenticate?method=cert')).status, 401);
    assert.equal(
      (await mtlsRequest(target, device, 'POST', '/enroll/ottca', { json: { token: back.token } })).status,
      200,
    );
    assert.equal((await mtlsRequest(target, device, 'POST', '/authenticate?method=cert')).status, 200);

    // The CA stops allowing authentication: its certificates stop working.
    assertStatus(await admin.patch(`/cas/${caId}`, { isAuthEnabled: false }), 200);
    assert.equal((await mtlsRequest(target, device, 'POST', '/authenticate?method=cert')).status, 401);
  });

  it("auto-enrollment: a verified CA's certificate, where allowed, becomes an identity with the CA roles", async () => {
    const target = { baseUrl: ctl.url, caPem: ctl.caPem };
    const files = opensslCa(unique('fleet-ca'));
    const caName = unique('fleet');
    const caId = (
      await admin.post('/cas', {
        name: caName,
        certPem: files.pem,
        isAutoCaEnrollmentEnabled: true,
        isOttCaEnrollmentEnabled: false,
        isAuthEnabled: true,
        identityRoles: ['fleet', 'sensors'],
      })
    ).body.data.id;
    const sensor = unique('sensor');
    const device = { cert: opensslSigned(files, sensor, `${sensor}-a`), key: opensslSignedKey(`${sensor}-a`) };
    const early = await mtlsRequest(target, device, 'POST', '/enroll/ca');
    assert.equal(early.status, 400, early.text);
    assert.equal(early.body.error.code, 'ENROLLMENT_NO_VALID_CAS');
    const token = (await admin.get(`/cas/${caId}`)).body.data.verificationToken;
    assertStatus(
      await admin.request('POST', `/cas/${caId}/verify`, {
        body: opensslSigned(files, token, unique('v')),
        headers: { 'content-type': 'text/plain' },
      }),
      200,
    );

    const enrolled = await mtlsRequest(target, device, 'POST', '/enroll/ca');
    assert.equal(enrolled.status, 200, enrolled.text);
    const made = (await admin.get('/identities', { query: { filter: `name = "${caName}-${sensor}"` } })).body.data[0];
    assert.ok(made, 'the identity is named by the CA format');
    assert.deepEqual([...made.roleAttributes].sort(), ['fleet', 'sensors']);
    assert.equal(
      (await mtlsRequest(target, device, 'POST', '/enroll/ca')).body.error.code,
      'ENROLLMENT_IDENTITY_ALREADY_ENROLLED',
    );
    const login = await mtlsRequest(target, device, 'POST', '/authenticate?method=cert');
    assert.equal(login.status, 200, login.text);
    assert.equal(login.body.data.identity.id, made.id);

    // A second device with the same common name gets a numbered name.
    const twin = { cert: opensslSigned(files, sensor, `${sensor}-b`), key: opensslSignedKey(`${sensor}-b`) };
    assert.equal((await mtlsRequest(target, twin, 'POST', '/enroll/ca')).status, 200);
    assert.equal(
      (await admin.get('/identities', { query: { filter: `name = "${caName}-${sensor}-2"` } })).body.data.length,
      1,
    );
  });

  it('network JWTs name this controller and verify with its certificate', async () => {
    const res = await ctl.api.get('/network-jwts', { api: 'client' });
    assertStatus(res, 200);
    const [entry] = res.body.data;
    assert.equal(entry.name, 'default');
    const claims = JSON.parse(Buffer.from(entry.token.split('.')[1], 'base64url').toString());
    assert.equal(claims.em, 'network');
    assert.equal(claims.iss, `${ctl.url}/`);
    const serverCert = new X509Certificate(await serverCertificatePem(ctl.url, ctl.caPem));
    await jwtVerify(entry.token, serverCert.publicKey, { algorithms: ['RS256'] });
  });

  it('the CA JWT, ENROLLMENT_EXISTS for ottca, and deleting a CA takes its enrollments', async () => {
    const files = opensslCa(unique('gone-ca'));
    const caId = (
      await admin.post('/cas', {
        name: unique('gone'),
        certPem: files.pem,
        isAutoCaEnrollmentEnabled: false,
        isOttCaEnrollmentEnabled: true,
        isAuthEnabled: true,
        identityRoles: [],
      })
    ).body.data.id;
    const jwt = await admin.get(`/cas/${caId}/jwt`);
    assertStatus(jwt, 200, 'CA JWT');
    assert.match(String(jwt.headers['content-type']), /application\/jwt/);
    assert.equal(JSON.parse(Buffer.from(jwt.text.split('.')[1], 'base64url').toString()).em, 'ca');

    const identityId = await createIdentity(admin, { name: unique('gone-device') });
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    assertStatus(await admin.post('/enrollments', { identityId, method: 'ottca', caId, expiresAt }), 201);
    assertError(
      await admin.post('/enrollments', { identityId, method: 'ottca', caId, expiresAt }),
      409,
      'ENROLLMENT_EXISTS',
    );
    assertError(
      await admin.post('/enrollments', { identityId, method: 'ott', caId, expiresAt }),
      400,
      'COULD_NOT_VALIDATE',
      'caId',
    );
    assertStatus(await admin.delete(`/cas/${caId}`), 200);
    assert.equal((await admin.get(`/identities/${identityId}/enrollments`)).body.data.length, 0);
  });
});
