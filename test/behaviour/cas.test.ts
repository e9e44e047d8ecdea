// Third-party CAs: created unverified with a verification token; verified by an openssl-made certificate whose
// common name is the token, signed by the CA; every verify error code of wire-protocol section 6; the CA's JWT.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { opensslCa, opensslSigned } from '../helpers/openssl.js';
import { X509Certificate } from 'node:crypto';
import { jwtVerify } from 'jose';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';

for (const store of storesUnderTest()) {
  describe(`CAs (${store})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(store);
    });
    after(async () => t?.close());

    const createCa = (name: string, certPem: string) =>
      t.admin.request('POST', '/cas', {
        json: {
          name,
          certPem,
          isAutoCaEnrollmentEnabled: false,
          isOttCaEnrollmentEnabled: true,
          isAuthEnabled: true,
          identityRoles: ['from-ca'],
        },
      });
    // Raw requests (a text/plain body, a JWT answer) need the admin's token: the session shows it to its owner.
    let adminToken = '';
    before(async () => {
      adminToken = (await t.admin.request('GET', '/current-api-session')).body.data.token;
    });
    const verify = (id: string, body: string) =>
      t.app.inject({
        method: 'POST',
        url: `/edge/management/v1/cas/${id}/verify`,
        headers: { 'content-type': 'text/plain', 'zt-session': adminToken },
        payload: body,
      });

    it('created unverified with a token; verified only by its own certificate with the token as CN', async () => {
      const caFiles = opensslCa('corp-ca');
      const res = await createCa('corp', caFiles.pem);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const id = res.body.data.id as string;
      const detail = (await t.admin.request('GET', `/cas/${id}`)).body.data;
      assert.equal(detail.isVerified, false);
      assert.match(detail.verificationToken, /^[0-9a-f-]{36}$/);
      assert.equal(detail.identityNameFormat, '[caName]-[commonName]');
      assert.deepEqual(detail.identityRoles, ['from-ca']);
      assert.equal(detail.fingerprint.length, 40);

      const expectCode = async (body: string, status: number, code: string) => {
        const r = await verify(id, body);
        assert.equal(r.statusCode, status, r.body);
        assert.equal(r.json().error.code, code, r.body);
      };
      await expectCode('not pem at all', 400, 'COULD_NOT_PARSE_BODY');
      await expectCode(readFileSync(caFiles.key, 'utf8'), 400, 'EXPECTED_PEM_CERTIFICATE');
      await expectCode(
        '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
        400,
        'COULD_NOT_PARSE_DER_BLOCK',
      );
      await expectCode(opensslSigned(caFiles, 'not-the-token'), 400, 'INVALID_COMMON_NAME');
      const other = opensslCa('other-ca');
      await expectCode(
        opensslSigned(other, detail.verificationToken, 'by-other'),
        400,
        'CERTIFICATE_FAILED_VALIDATION',
      );
      assert.equal((await t.admin.request('GET', `/cas/${id}`)).body.data.isVerified, false, 'nothing changed');

      const ok = await verify(id, opensslSigned(caFiles, detail.verificationToken, 'good'));
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal((await t.admin.request('GET', `/cas/${id}`)).body.data.isVerified, true);
      await expectCode(opensslSigned(caFiles, detail.verificationToken, 'again'), 409, 'CA_ALREADY_VERIFIED');

      // isVerified is the server's to set: a body cannot.
      const patch = await t.admin.request('PATCH', `/cas/${id}`, { json: { isVerified: false } });
      assert.equal(patch.status, 400);
    });

    it('refuses a certificate that is not a CA, and garbage, naming certPem', async () => {
      const leaf = opensslCa('leaf-only', { isCa: false });
      const notCa = await createCa('leafy', leaf.pem);
      assert.equal(notCa.status, 400);
      assert.equal(notCa.body.error.code, 'CERTIFICATE_IS_NOT_CA');
      const garbage = await createCa('garbage', 'hello');
      assert.equal(garbage.status, 400);
      assert.equal(garbage.body.error.code, 'INVALID_CERT_PEM');
      const missing = await t.admin.request('POST', '/cas', {
        json: {
          name: 'x',
          isAutoCaEnrollmentEnabled: false,
          isOttCaEnrollmentEnabled: false,
          isAuthEnabled: false,
          identityRoles: [],
        },
      });
      assert.equal(missing.body.error.cause.field, 'certPem');
    });

    it("serves the CA's enrollment JWT as application/jwt (em ca, no expiry)", async () => {
      const id = (await createCa('jwt-ca', opensslCa('jwt-ca').pem)).body.data.id;
      const res = await t.app.inject({
        method: 'GET',
        url: `/edge/management/v1/cas/${id}/jwt`,
        headers: { 'zt-session': adminToken },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /^application\/jwt/);
      const [, payload] = res.body.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      assert.equal(claims.em, 'ca');
      assert.equal(claims.sub, id);
      assert.equal(claims.jti, id);
      assert.deepEqual(claims.aud, ['openziti-enroller']);
      assert.equal(claims.exp, undefined);
      assert.equal(claims.iss, 'https://127.0.0.1:1/');
      // Signed with the key of every enrollment JWT, the server certificate's.
      await jwtVerify(res.body, new X509Certificate(t.app.runtime.pki.serverCertPem).publicKey, {
        algorithms: ['RS256'],
      });
    });
  });
}
