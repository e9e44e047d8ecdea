// Enrollment with an external JWT, as OpenZiti has it since late 2025: a signer's enrollToCertEnabled and
// enrollToTokenEnabled (with the claims selectors and the enrollment auth policy that go with them) are accepted,
// checked, stored and served, and `POST /enroll/token` creates the identity a token names: with a certificate when a
// CSR comes with it, or to log in with the signer's tokens. Every refusal leaves nothing behind. Both stores.
import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { createCsr } from '../../src/protocol/csr.js';
import { LoginThrottle, DEFAULT_LOGIN_THROTTLE } from '../../src/controller/auth/throttle.js';
import { opensslCa } from '../helpers/openssl.js';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';
import { validateResponse } from '../helpers/spec.js';

const CLIENT = '/edge/client/v1';
const nowS = () => Math.floor(Date.now() / 1000);
const ecCsr = () => createCsr(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey, 'enrolling-device');

for (const store of storesUnderTest()) {
  describe(`enrollment with external JWTs (${store})`, () => {
    let t: TestApp;
    const idp = opensslCa('token-enroll-idp', { isCa: false });
    const key = createPrivateKey(readFileSync(idp.key, 'utf8'));
    const issuer = 'https://enroll-idp.example';
    let signerId = '';
    let n = 0;

    const token = (claims: Record<string, unknown> = {}, signWith = key) => {
      n += 1;
      const base = { iss: issuer, aud: 'ctl', sub: `user-${n}@corp`, preferred_username: `enrolled-${n}`, groups: ['staff', 'vpn'], exp: nowS() + 300 };
      return new SignJWT({ ...base, ...claims }).setProtectedHeader({ alg: 'ES256', kid: 'enroll-kid' }).sign(signWith);
    };
    /** `POST /enroll/token`, the answer checked against OpenZiti's Swagger. */
    const enroll = async (jwt: string | undefined, body?: Record<string, unknown>, headers: Record<string, string> = {}) => {
      const res = await t.app.inject({
        method: 'POST',
        url: `${CLIENT}/enroll/token`,
        headers: { ...(jwt === undefined ? {} : { authorization: `Bearer ${jwt}` }), ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
        payload: body ? JSON.stringify(body) : undefined,
      });
      const json = res.body ? res.json() : undefined;
      validateResponse('client', 'POST', '/enroll/token', res.statusCode, json);
      return { status: res.statusCode, body: json };
    };
    const identityByExternalId = async (externalId: string) =>
      (await t.admin.request('GET', '/identities', { query: `filter=${encodeURIComponent(`externalId = "${externalId}"`)}` })).body.data as any[];
    const identityCount = async () => (await t.admin.request('GET', '/identities', { query: 'limit=1' })).body.meta.pagination.totalCount as number;
    const patchSigner = async (json: Record<string, unknown>) => {
      const res = await t.admin.request('PATCH', `/external-jwt-signers/${signerId}`, { json });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    };

    before(async () => {
      t = await createTestApp(store);
      // The refusals below come from one address: the login throttle is not what is tested here.
      t.app.runtime.loginThrottle = new LoginThrottle({ ...DEFAULT_LOGIN_THROTTLE, perAddress: { capacity: 10_000, refillPerSecond: 1, maxKeys: 100 }, perUsername: { capacity: 10_000, refillPerSecond: 1, maxKeys: 100 } });
      const res = await t.admin.request('POST', '/external-jwt-signers', {
        json: {
          name: 'enroll-idp',
          enabled: true,
          issuer,
          audience: 'ctl',
          certPem: idp.pem,
          kid: 'enroll-kid',
          useExternalId: true,
          enrollToCertEnabled: true,
          enrollToTokenEnabled: true,
          enrollNameClaimsSelector: '/preferred_username',
          enrollAttributeClaimsSelector: 'groups',
        },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      signerId = res.body.data.id;
    });
    after(async () => t?.close());

    it('a signer serves its enrollment settings, OpenZiti\'s defaults where none were given, and the client list shows the flags', async () => {
      const plain = await t.admin.request('POST', '/external-jwt-signers', { json: { name: 'plain-idp', enabled: true, issuer: 'https://plain.example', audience: 'a', jwksEndpoint: 'https://plain.example/jwks', id: '' } });
      assert.equal(plain.status, 201, JSON.stringify(plain.body));
      const d = (await t.admin.request('GET', `/external-jwt-signers/${plain.body.data.id}`)).body.data;
      assert.deepEqual(
        [d.enrollToCertEnabled, d.enrollToTokenEnabled, d.enrollNameClaimsSelector, d.enrollAttributeClaimsSelector, d.enrollAuthPolicyId],
        [false, false, '/sub', '', 'default'],
      );
      const s = (await t.admin.request('GET', `/external-jwt-signers/${signerId}`)).body.data;
      assert.deepEqual([s.enrollToCertEnabled, s.enrollToTokenEnabled, s.enrollNameClaimsSelector, s.enrollAttributeClaimsSelector], [true, true, '/preferred_username', 'groups']);
      const listed = (await t.anonymous.request('GET', `${CLIENT}/external-jwt-signers`)).body.data.find((x: { id: string }) => x.id === signerId);
      assert.deepEqual([listed.enrollToCertEnabled, listed.enrollToTokenEnabled], [true, true]);
      const filtered = await t.admin.request('GET', '/external-jwt-signers', { query: `filter=${encodeURIComponent('enrollToCertEnabled = true')}` });
      assert.deepEqual(filtered.body.data.map((x: { id: string }) => x.id), [signerId]);
      // "" clears the attribute selector, as a form that empties the field sends it.
      const cleared = await t.admin.request('PATCH', `/external-jwt-signers/${plain.body.data.id}`, { json: { enrollAttributeClaimsSelector: 'roles' } });
      assert.equal(cleared.status, 200);
      await t.admin.request('PATCH', `/external-jwt-signers/${plain.body.data.id}`, { json: { enrollAttributeClaimsSelector: '' } });
      assert.equal((await t.admin.request('GET', `/external-jwt-signers/${plain.body.data.id}`)).body.data.enrollAttributeClaimsSelector, '');
    });

    it('refuses enrollment settings the auth policy cannot honour, naming the field, and writes nothing', async () => {
      const policy = async (primary: Record<string, unknown>) => {
        const res = await t.admin.request('POST', '/auth-policies', {
          json: {
            name: `policy-${Math.random().toString(36).slice(2, 8)}`,
            primary: { cert: { allowed: false, allowExpiredCerts: false }, updb: { allowed: true, minPasswordLength: 5, requireSpecialChar: false, requireNumberChar: false, requireMixedCase: false, maxAttempts: 0, lockoutDurationMinutes: 0 }, extJwt: { allowed: false, allowedSigners: [] }, ...primary },
            secondary: { requireTotp: false, requireExtJwtSigner: null },
          },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body.data.id as string;
      };
      const noCert = await policy({});
      const body = { name: 'refused-idp', enabled: true, issuer: 'https://refused.example', audience: 'a', jwksEndpoint: 'https://refused.example/jwks' };
      const refusals: [Record<string, unknown>, string, RegExp][] = [
        [{ enrollAuthPolicyId: 'no-such-policy' }, 'enrollAuthPolicyId', /could not be found/],
        [{ enrollAuthPolicyId: noCert, enrollToCertEnabled: true }, 'enrollAuthPolicyId', /certificate authentication on auth policy is disabled/],
        [{ enrollAuthPolicyId: noCert, enrollToTokenEnabled: true }, 'enrollAuthPolicyId', /external jwt authentication on auth policy is disabled/],
        [{ enrollNameClaimsSelector: '/a~2b' }, 'enrollNameClaimsSelector', /JSON pointer/],
        [{ enrollAttributeClaimsSelector: 'groups~' }, 'enrollAttributeClaimsSelector', /JSON pointer/],
        [{ enrollToCertEnabled: 'yes' }, 'enrollToCertEnabled', /boolean/],
      ];
      for (const [extra, field, reason] of refusals) {
        const res = await t.admin.request('POST', '/external-jwt-signers', { json: { ...body, ...extra } });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.error.cause.field, field, JSON.stringify(res.body));
        assert.match(res.body.error.cause.reason, reason);
      }
      assert.equal((await t.admin.request('GET', '/external-jwt-signers', { query: `filter=${encodeURIComponent('name = "refused-idp"')}` })).body.data.length, 0);
      const patched = await t.admin.request('PATCH', `/external-jwt-signers/${signerId}`, { json: { enrollAuthPolicyId: noCert } });
      assert.equal(patched.status, 400, 'the signer enrolls to certificates: a policy without them will not do');
      // A policy a signer gives its enrolled identities cannot be deleted from under it.
      const withCert = await policy({ cert: { allowed: true, allowExpiredCerts: false } });
      const named = await t.admin.request('POST', '/external-jwt-signers', { json: { ...body, enrollAuthPolicyId: withCert, enrollToCertEnabled: true } });
      assert.equal(named.status, 201, JSON.stringify(named.body));
      const del = await t.admin.request('DELETE', `/auth-policies/${withCert}`);
      assert.equal(del.status, 409, JSON.stringify(del.body));
      assert.equal(del.body.error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
      assert.equal(del.body.error.cause.field, 'enrollAuthPolicyId');
      assert.equal((await t.admin.request('DELETE', `/external-jwt-signers/${named.body.data.id}`)).status, 200);
      assert.equal((await t.admin.request('DELETE', `/auth-policies/${withCert}`)).status, 200);
    });

    it('a token and a CSR enroll the identity the token names, with a certificate of this controller', async () => {
      const jwt = await token();
      const sub = `user-${n}@corp`;
      const res = await enroll(jwt, { clientCsr: ecCsr() });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.match(res.body.data.cert, /BEGIN CERTIFICATE/);
      assert.equal(res.body.data.ca, t.app.runtime.pki.caBundlePem);
      const [made] = await identityByExternalId(sub);
      assert.equal(made.name, `enrolled-${n}`);
      assert.deepEqual([...made.roleAttributes].sort(), ['staff', 'vpn']);
      assert.equal(made.authPolicyId, 'default');
      assert.equal(made.isAdmin, false);
      const cert = new X509Certificate(res.body.data.cert.split(/(?<=-----END CERTIFICATE-----)/)[0]);
      assert.match(cert.subjectAltName ?? '', new RegExp(`/identity/${made.id}`), 'the SPIFFE id names the new identity');
      const auth = (await t.admin.request('GET', `/identities/${made.id}/authenticators`)).body.data;
      assert.deepEqual(auth.map((a: { method: string; isIssuedByNetwork: boolean }) => [a.method, a.isIssuedByNetwork]), [['cert', true]]);
      // The same token again, or another token naming the same subject, enrolls nothing more.
      const before = await identityCount();
      const again = await enroll(await token({ sub }), { clientCsr: ecCsr() });
      assert.equal(again.status, 409, JSON.stringify(again.body));
      assert.equal(again.body.error.code, 'ENROLLMENT_IDENTITY_ALREADY_ENROLLED');
      assert.equal(await identityCount(), before);
    });

    it('a token alone enrolls an identity that then logs in with the signer\'s tokens', async () => {
      const jwt = await token({ groups: 'single' });
      const sub = `user-${n}@corp`;
      const res = await enroll(jwt, {}, { 'ziti-token-issuer-id': signerId });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.data, {});
      const [made] = await identityByExternalId(sub);
      assert.deepEqual(made.roleAttributes, ['single']);
      assert.deepEqual((await t.admin.request('GET', `/identities/${made.id}/authenticators`)).body.data, []);
      const login = await t.app.inject({ method: 'POST', url: `${CLIENT}/authenticate?method=ext-jwt`, headers: { authorization: `Bearer ${jwt}` } });
      assert.equal(login.statusCode, 200, login.body);
      assert.equal(login.json().data.identity.id, made.id);
    });

    it('refuses bad tokens (400), enrollment the signer or its policy does not allow (409), bad CSRs; nothing is made', async () => {
      const before = await identityCount();
      const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
      const invalid: [string | undefined, Record<string, string>, string][] = [
        [undefined, {}, 'no token'],
        ['not-a-jwt', {}, 'not a JWT'],
        [await token({}, other), {}, 'signed by another key'],
        [await token({ exp: nowS() - 10 }), {}, 'expired'],
        [await token({ aud: 'someone-else' }), {}, 'another audience'],
        [await token({ iss: 'https://unknown.example' }), {}, 'unknown issuer'],
        [await token(), { 'ziti-token-issuer-id': 'no-such-signer' }, 'unknown signer id'],
        [await token({ preferred_username: '' }), {}, 'empty name claim'],
        [await token({ preferred_username: 7 }), {}, 'name claim not a string'],
        [await token({ groups: [1, 2] }), {}, 'attributes that are not strings'],
      ];
      for (const [jwt, headers, why] of invalid) {
        const res = await enroll(jwt, { clientCsr: ecCsr() }, headers);
        assert.equal(res.status, 400, `${why}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error.code, 'INVALID_ENROLLMENT_TOKEN', why);
      }
      const badCsr = await enroll(await token(), { clientCsr: 'not a csr' });
      assert.equal(badCsr.status, 400);
      assert.equal(badCsr.body.error.code, 'COULD_NOT_PROCESS_CSR');
      const unknownMember = await enroll(await token(), { clientCsr: ecCsr(), name: 'x' });
      assert.equal(unknownMember.status, 400);
      const taken = await enroll(await token({ preferred_username: 'conformance-user' }), { clientCsr: ecCsr() });
      assert.equal(taken.status, 400, JSON.stringify(taken.body));
      assert.equal(taken.body.error.cause.field, 'name');

      await patchSigner({ enrollToCertEnabled: false });
      const noCert = await enroll(await token(), { clientCsr: ecCsr() });
      assert.equal(noCert.status, 409, JSON.stringify(noCert.body));
      assert.equal(noCert.body.error.code, 'INVALID_ENROLLMENT_NOT_ALLOWED');
      await patchSigner({ enrollToCertEnabled: true, enrollToTokenEnabled: false });
      assert.equal((await enroll(await token())).body.error.code, 'INVALID_ENROLLMENT_NOT_ALLOWED');
      await patchSigner({ enrollToTokenEnabled: true, enabled: false });
      assert.equal((await enroll(await token(), { clientCsr: ecCsr() })).body.error.code, 'INVALID_ENROLLMENT_TOKEN', 'a disabled signer');
      await patchSigner({ enabled: true });
      // The policy is read again at enrollment: one that no longer allows ext-JWT logins with the signer refuses.
      await t.admin.request('PATCH', '/auth-policies/default', { json: { primary: { extJwt: { allowed: false } } } });
      try {
        assert.equal((await enroll(await token())).body.error.code, 'INVALID_ENROLLMENT_NOT_ALLOWED');
      } finally {
        await t.admin.request('PATCH', '/auth-policies/default', { json: { primary: { extJwt: { allowed: true } } } });
      }
      assert.equal(await identityCount(), before, 'no refused enrollment made an identity');
    });
  });
}
