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
import { opensslCa } from '../helpers/openssl.js';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';
import { validateResponse } from '../helpers/spec.js';

const CLIENT = '/edge/client/v1';
const nowS = () => Math.floor(Date.now() / 1000);
const ecCsr = () => createCsr(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey, 'enrolling-device');
const UPDB_RULES = {
  allowed: true,
  minPasswordLength: 5,
  requireSpecialChar: false,
  requireNumberChar: false,
  requireMixedCase: false,
  maxAttempts: 0,
  lockoutDurationMinutes: 0,
};

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
      const base = { iss: issuer, aud: 'ctl', sub: `user-${n}@corp`, exp: nowS() + 300 };
      const enrolling = { preferred_username: `enrolled-${n}`, groups: ['staff', 'vpn'] };
      const jwt = new SignJWT({ ...base, ...enrolling, ...claims });
      return jwt.setProtectedHeader({ alg: 'ES256', kid: 'enroll-kid' }).sign(signWith);
    };
    /** `POST /enroll/token`, the answer checked against OpenZiti's Swagger. */
    type Json = Record<string, unknown>;
    const enroll = async (jwt: string | undefined, body?: Json, extra: Record<string, string> = {}) => {
      const headers: Record<string, string> = { ...extra };
      if (jwt !== undefined) headers.authorization = `Bearer ${jwt}`;
      if (body) headers['content-type'] = 'application/json';
      const payload = body ? JSON.stringify(body) : undefined;
      const res = await t.app.inject({ method: 'POST', url: `${CLIENT}/enroll/token`, headers, payload });
      const json = res.body ? res.json() : undefined;
      validateResponse('client', 'POST', '/enroll/token', res.statusCode, json);
      return { status: res.statusCode, body: json };
    };
    const filter = (zitiql: string) => `filter=${encodeURIComponent(zitiql)}`;
    const identityByExternalId = async (externalId: string) => {
      const res = await t.admin.request('GET', '/identities', { query: filter(`externalId = "${externalId}"`) });
      return res.body.data as any[];
    };
    const identityCount = async () =>
      (await t.admin.request('GET', '/identities', { query: 'limit=1' })).body.meta.pagination.totalCount as number;
    const signers = {
      create: (json: Json) => t.admin.request('POST', '/external-jwt-signers', { json }),
      get: async (id: string) => (await t.admin.request('GET', `/external-jwt-signers/${id}`)).body.data,
      patch: (id: string, json: Json) => t.admin.request('PATCH', `/external-jwt-signers/${id}`, { json }),
      named: async (name: string) => {
        const res = await t.admin.request('GET', '/external-jwt-signers', { query: filter(`name = "${name}"`) });
        return res.body.data;
      },
    };
    const patchSigner = async (json: Json) => {
      const res = await signers.patch(signerId, json);
      assert.equal(res.status, 200, JSON.stringify(res.body));
    };

    before(async () => {
      t = await createTestApp(store);
      const res = await signers.create({
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
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      signerId = res.body.data.id;
    });
    after(async () => t?.close());

    it("a signer serves its enrollment settings, with OpenZiti's defaults; its client view the flags", async () => {
      const keySet = { issuer: 'https://plain.example', audience: 'a', jwksEndpoint: 'https://plain.example/jwks' };
      const plain = await signers.create({ name: 'plain-idp', enabled: true, ...keySet, id: '' });
      assert.equal(plain.status, 201, JSON.stringify(plain.body));
      const plainId = plain.body.data.id as string;
      const settings = (d: any) => [
        d.enrollToCertEnabled,
        d.enrollToTokenEnabled,
        d.enrollNameClaimsSelector,
        d.enrollAttributeClaimsSelector,
      ];
      const d = await signers.get(plainId);
      assert.deepEqual([...settings(d), d.enrollAuthPolicyId], [false, false, '/sub', '', 'default']);
      assert.deepEqual(settings(await signers.get(signerId)), [true, true, '/preferred_username', 'groups']);
      const listed = (await t.anonymous.request('GET', `${CLIENT}/external-jwt-signers`)).body.data;
      const mine = listed.find((x: { id: string }) => x.id === signerId);
      assert.deepEqual([mine.enrollToCertEnabled, mine.enrollToTokenEnabled], [true, true]);
      const filtered = await t.admin.request('GET', '/external-jwt-signers', { query: filter('enrollToCertEnabled') });
      assert.deepEqual(
        filtered.body.data.map((x: { id: string }) => x.id),
        [signerId],
      );
      // "" clears the attribute selector, as a form that empties the field sends it.
      const set = (value: string) => signers.patch(plainId, { enrollAttributeClaimsSelector: value });
      assert.equal((await set('roles')).status, 200);
      assert.equal((await signers.get(plainId)).enrollAttributeClaimsSelector, 'roles');
      assert.equal((await set('')).status, 200);
      assert.equal((await signers.get(plainId)).enrollAttributeClaimsSelector, '');
    });

    it('refuses enrollment settings the auth policy cannot honour, naming the field, and writes nothing', async () => {
      const policy = async (primary: Record<string, unknown>) => {
        const res = await t.admin.request('POST', '/auth-policies', {
          json: {
            name: `policy-${Math.random().toString(36).slice(2, 8)}`,
            primary: {
              cert: { allowed: false, allowExpiredCerts: false },
              updb: UPDB_RULES,
              extJwt: { allowed: false, allowedSigners: [] },
              ...primary,
            },
            secondary: { requireTotp: false, requireExtJwtSigner: null },
          },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body.data.id as string;
      };
      const noCert = await policy({});
      const keySet = { issuer: 'https://refused.example', audience: 'a', jwksEndpoint: 'https://refused.example/jwks' };
      const body = { name: 'refused-idp', enabled: true, ...keySet };
      const refusals: [Json, string, RegExp][] = [
        [{ enrollAuthPolicyId: 'no-such-policy' }, 'enrollAuthPolicyId', /could not be found/],
        [{ enrollAuthPolicyId: noCert, enrollToCertEnabled: true }, 'enrollAuthPolicyId', /certificate .* disabled/],
        [{ enrollAuthPolicyId: noCert, enrollToTokenEnabled: true }, 'enrollAuthPolicyId', /external jwt .* disabled/],
        [{ enrollNameClaimsSelector: '/a~2b' }, 'enrollNameClaimsSelector', /JSON pointer/],
        [{ enrollAttributeClaimsSelector: 'groups~' }, 'enrollAttributeClaimsSelector', /JSON pointer/],
        [{ enrollToCertEnabled: 'yes' }, 'enrollToCertEnabled', /boolean/],
      ];
      for (const [extra, field, reason] of refusals) {
        const res = await signers.create({ ...body, ...extra });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.error.cause.field, field, JSON.stringify(res.body));
        assert.match(res.body.error.cause.reason, reason);
      }
      assert.deepEqual(await signers.named('refused-idp'), []);
      const patched = await signers.patch(signerId, { enrollAuthPolicyId: noCert });
      assert.equal(patched.status, 400, 'the signer enrolls to certificates: a policy without them will not do');
      // A policy a signer gives its enrolled identities cannot be deleted from under it.
      const withCert = await policy({ cert: { allowed: true, allowExpiredCerts: false } });
      const enrollsToCert = { enrollAuthPolicyId: withCert, enrollToCertEnabled: true };
      const named = await signers.create({ ...body, ...enrollsToCert });
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
      assert.match(cert.subjectAltName ?? '', new RegExp(`/identity/${made.id}`), 'its SPIFFE id names the identity');
      const auth = (await t.admin.request('GET', `/identities/${made.id}/authenticators`)).body.data;
      const kinds = auth.map((a: { method: string; isIssuedByNetwork: boolean }) => [a.method, a.isIssuedByNetwork]);
      assert.deepEqual(kinds, [['cert', true]]);
      // The same token again, or another token naming the same subject, enrolls nothing more.
      const before = await identityCount();
      const again = await enroll(await token({ sub }), { clientCsr: ecCsr() });
      assert.equal(again.status, 409, JSON.stringify(again.body));
      assert.equal(again.body.error.code, 'ENROLLMENT_IDENTITY_ALREADY_ENROLLED');
      assert.equal(await identityCount(), before);
    });

    it("a token alone enrolls an identity that then logs in with the signer's tokens", async () => {
      const jwt = await token({ groups: 'single' });
      const sub = `user-${n}@corp`;
      const res = await enroll(jwt, {}, { 'ziti-token-issuer-id': signerId });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.data, {});
      const [made] = await identityByExternalId(sub);
      assert.deepEqual(made.roleAttributes, ['single']);
      assert.deepEqual((await t.admin.request('GET', `/identities/${made.id}/authenticators`)).body.data, []);
      const url = `${CLIENT}/authenticate?method=ext-jwt`;
      const login = await t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${jwt}` } });
      assert.equal(login.statusCode, 200, login.body);
      assert.equal(login.json().data.identity.id, made.id);
    });

    it('refuses bad tokens (400), enrollment not allowed (409), bad CSRs and names; makes nothing', async () => {
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
      const disabled = await enroll(await token(), { clientCsr: ecCsr() });
      assert.equal(disabled.body.error.code, 'INVALID_ENROLLMENT_TOKEN', 'a disabled signer');
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
