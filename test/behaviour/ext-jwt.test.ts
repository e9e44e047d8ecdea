// Authentication with external JWTs (`POST /authenticate?method=ext-jwt`) and the attacks it must refuse: every
// refusal is the same 401 INVALID_AUTH. The identity provider's key set is served by a local HTTP server here: it
// is the third party, not the controller under test.
import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { KeySetServer, signEs256 as sign } from '../helpers/key-set-server.js';
import { configureJwks } from '../../src/controller/model/auth/ext-jwt.js';
import { LoginThrottle, DEFAULT_LOGIN_THROTTLE } from '../../src/controller/auth/throttle.js';
import { opensslCa } from '../helpers/openssl.js';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';
import { DEFAULT_UPDB_RULES } from '../../src/resources/auth-policy.js';

const CLIENT = '/edge/client/v1';
const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
const nowS = () => Math.floor(Date.now() / 1000);

for (const store of storesUnderTest()) {
  describe(`ext-jwt authentication (${store})`, () => {
    let t: TestApp;
    const idp = opensslCa('ext-jwt-idp', { isCa: false });
    const certKey = createPrivateKey(readFileSync(idp.key, 'utf8'));
    const jwksKey1 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const jwksKey2 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const keys = new KeySetServer();
    let clock = 0;
    let jwksUrl = '';
    let certSigner = { id: '', issuer: 'https://cert-idp.example' };
    let jwksSigner = { id: '', issuer: 'https://jwks-idp.example' };
    let alice = '';
    let bob = '';

    const login = (token: string | undefined, path = `${CLIENT}/authenticate?method=ext-jwt`) =>
      t.app.inject({
        method: 'POST',
        url: path,
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      });
    const certToken = (claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}) =>
      sign(
        certKey,
        { kid: 'cert-kid', ...header },
        { iss: certSigner.issuer, aud: 'ctl', sub: alice, exp: nowS() + 300, ...claims },
      );
    const jwksToken = (key: KeyObject, kid: string, claims: Record<string, unknown> = {}) =>
      sign(key, { kid }, { iss: jwksSigner.issuer, aud: 'ziti', sub: alice, exp: nowS() + 300, ...claims });
    /** Every refusal looks the same: status, code and message (no hint of which check failed). */
    const refused = async (token: string | undefined, why: string) => {
      const res = await login(token);
      assert.equal(res.statusCode, 401, `${why}: ${res.body}`);
      const error = res.json().error;
      assert.equal(error.code, 'INVALID_AUTH', why);
      assert.equal(error.message, 'The authentication request failed', why);
    };

    before(async () => {
      t = await createTestApp(store);
      // The attack suite fails many times from one address: the throttle is tested on its own below.
      t.app.runtime.loginThrottle = new LoginThrottle({
        ...DEFAULT_LOGIN_THROTTLE,
        perAddress: { capacity: 10_000, refillPerSecond: 1, maxKeys: 100 },
        perUsername: { capacity: 10_000, refillPerSecond: 1, maxKeys: 100 },
      });
      configureJwks(t.app.runtime, {
        now: () => clock,
        minRefetchIntervalMs: 10_000,
        timeoutMs: 500,
        maxBytes: 16 * 1024,
      });
      jwksUrl = await keys.start();
      keys.serve([{ kid: 'k1', key: jwksKey1 }]);
      alice = (
        await t.admin.request('POST', '/identities', {
          json: { name: 'jwt-alice', type: 'User', isAdmin: false, externalId: 'alice@corp.example' },
        })
      ).body.data.id;
      bob = (await t.admin.request('POST', '/identities', { json: { name: 'jwt-bob', type: 'User', isAdmin: false } }))
        .body.data.id;
      const c = await t.admin.request('POST', '/external-jwt-signers', {
        json: {
          name: 'cert-idp',
          enabled: true,
          issuer: certSigner.issuer,
          audience: 'ctl',
          certPem: idp.pem,
          kid: 'cert-kid',
        },
      });
      assert.equal(c.status, 201, JSON.stringify(c.body));
      certSigner = { ...certSigner, id: c.body.data.id };
      const j = await t.admin.request('POST', '/external-jwt-signers', {
        json: { name: 'jwks-idp', enabled: true, issuer: jwksSigner.issuer, audience: 'ziti', jwksEndpoint: jwksUrl },
      });
      assert.equal(j.status, 201, JSON.stringify(j.body));
      jwksSigner = { ...jwksSigner, id: j.body.data.id };
    });
    after(async () => {
      await t?.close();
      keys.server.close();
    });

    it('a token of a certificate signer opens a session of the identity it names', async () => {
      const res = await login(await certToken());
      assert.equal(res.statusCode, 200, res.body);
      const session = res.json().data;
      assert.equal(session.identity.id, alice);
      const me = await t.app.inject({
        method: 'GET',
        url: `${CLIENT}/current-identity`,
        headers: { 'zt-session': session.token },
      });
      assert.equal(me.json().data.name, 'jwt-alice');
      // The session records the signer as its authenticator.
      const listed = await t.admin.request('GET', `/api-sessions/${session.id}`);
      assert.equal(listed.body.data.authenticatorId, certSigner.id);
    });

    it('a token of a key-set signer verifies with the key of its kid', async () => {
      const res = await login(await jwksToken(jwksKey1, 'k1'));
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().data.identity.id, alice);
    });

    it('refuses alg none, HMAC keyed with the public key, and algorithms outside the allow-list', async () => {
      const claims = { iss: certSigner.issuer, aud: 'ctl', sub: alice, exp: nowS() + 300 };
      await refused(`${b64({ alg: 'none', kid: 'cert-kid' })}.${b64(claims)}.`, 'alg none');
      await refused(`${b64({ alg: 'none', kid: 'cert-kid' })}.${b64(claims)}.${b64('x')}`, 'alg none with a signature');
      // The classic key confusion: HS256 with the signer's public certificate (which anyone can read) as the secret.
      const forged = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', kid: 'cert-kid' })
        .sign(new TextEncoder().encode(idp.pem));
      await refused(forged, 'HS256 keyed with the certificate');
      const publicPem = createPublicKey(certKey).export({ format: 'pem', type: 'spki' }) as string;
      await refused(
        await new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256', kid: 'cert-kid' })
          .sign(new TextEncoder().encode(publicPem)),
        'HS256 keyed with the public key',
      );
      // A token signed with a key of another type than its alg says.
      const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
      await refused(
        await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'cert-kid' }).sign(rsa),
        'RS256 against an EC certificate',
      );
    });

    it('refuses a missing, wrong or unknown kid', async () => {
      await refused(
        await sign(certKey, { kid: undefined }, { iss: certSigner.issuer, aud: 'ctl', sub: alice, exp: nowS() + 300 }),
        'no kid',
      );
      await refused(await certToken({}, { kid: 'other-kid' }), 'wrong kid for the certificate');
      await refused(await jwksToken(jwksKey1, 'k-unknown'), 'kid not in the key set');
      // The right kid with another key: the signature fails.
      await refused(await jwksToken(jwksKey2, 'k1'), 'k1 with a foreign key');
    });

    it('refuses a wrong issuer or audience, an expired, a not-yet-valid and an expiry-less token', async () => {
      await refused(await certToken({ iss: 'https://evil.example' }), 'unknown issuer');
      await refused(await certToken({ iss: jwksSigner.issuer }), "another signer's issuer with this signer's key");
      await refused(await certToken({ aud: 'other' }), 'wrong audience');
      await refused(await certToken({ aud: ['a', 'b'] }), 'audience list without ours');
      assert.equal(
        (await login(await certToken({ aud: ['a', 'ctl'] }))).statusCode,
        200,
        'a list holding our audience is fine',
      );
      await refused(await certToken({ exp: nowS() - 5 }), 'expired');
      await refused(await certToken({ nbf: nowS() + 600 }), 'not yet valid');
      await refused(await certToken({ exp: undefined }), 'no exp');
    });

    it('refuses a tampered payload or signature, and garbage', async () => {
      const good = await certToken();
      const [h, p, s] = good.split('.');
      const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
      await refused(`${h}.${b64({ ...claims, sub: bob })}.${s}`, 'payload changed to another identity');
      const sig = Buffer.from(s, 'base64url');
      sig[5] ^= 1;
      await refused(`${h}.${p}.${sig.toString('base64url')}`, 'signature changed');
      await refused('not-a-jwt', 'garbage');
      // Without a token the answer may say so: it tells nothing about any identity or signer.
      const none = await login(undefined);
      assert.equal(none.statusCode, 401);
      assert.equal(none.json().error.code, 'INVALID_AUTH');
    });

    it("refuses a token naming no identity, and a disabled signer's tokens", async () => {
      await refused(await certToken({ sub: 'no-such-identity' }), 'unknown identity');
      await t.admin.request('PATCH', `/external-jwt-signers/${certSigner.id}`, { json: { enabled: false } });
      try {
        await refused(await certToken(), 'disabled signer');
      } finally {
        await t.admin.request('PATCH', `/external-jwt-signers/${certSigner.id}`, { json: { enabled: true } });
      }
      assert.equal((await login(await certToken())).statusCode, 200);
    });

    it('matches externalId with useExternalId, and another claim with claimsProperty', async () => {
      await t.admin.request('PATCH', `/external-jwt-signers/${certSigner.id}`, {
        json: { useExternalId: true, claimsProperty: 'email' },
      });
      try {
        const byEmail = await login(await certToken({ sub: 'ignored', email: 'alice@corp.example' }));
        assert.equal(byEmail.statusCode, 200, byEmail.body);
        assert.equal(byEmail.json().data.identity.id, alice);
        await refused(await certToken({ email: alice }), 'the id where the externalId is expected');
        await refused(await certToken({ email: undefined }), 'the claim is missing');
        // OpenZiti spells claims properties as JSON pointers.
        await t.admin.request('PATCH', `/external-jwt-signers/${certSigner.id}`, {
          json: { claimsProperty: '/ext/mail' },
        });
        assert.equal((await login(await certToken({ ext: { mail: 'alice@corp.example' } }))).statusCode, 200);
      } finally {
        await t.admin.request('PATCH', `/external-jwt-signers/${certSigner.id}`, {
          json: { useExternalId: false, claimsProperty: 'sub' },
        });
      }
    });

    it('follows key rotation, re-fetching an unknown kid at most once an interval (a flood is one fetch)', async () => {
      clock += 60_000;
      keys.serve([
        { kid: 'k1', key: jwksKey1 },
        { kid: 'k2', key: jwksKey2 },
      ]);
      const before = keys.hits;
      assert.equal((await login(await jwksToken(jwksKey2, 'k2'))).statusCode, 200, 'the new kid is fetched');
      assert.equal(keys.hits, before + 1);
      // 25 tokens with made-up kids within the interval: no fetch at all (the last one was just now).
      await Promise.all(
        Array.from({ length: 25 }, async () =>
          refused(await jwksToken(jwksKey1, `flood-${randomBytes(4).toString('hex')}`), 'unknown kid'),
        ),
      );
      assert.equal(keys.hits, before + 1, 'unknown kids within the interval fetch nothing');
      clock += 10_000;
      await Promise.all(
        Array.from({ length: 25 }, async () =>
          refused(await jwksToken(jwksKey1, `flood-${randomBytes(4).toString('hex')}`), 'unknown kid'),
        ),
      );
      assert.equal(keys.hits, before + 2, 'a flood after the interval costs one fetch');
      // k1 retired: its tokens stop working once the set is fetched again.
      keys.serve([{ kid: 'k2', key: jwksKey2 }]);
      clock += 16 * 60_000;
      await refused(await jwksToken(jwksKey1, 'k1'), 'a retired key');
      assert.equal((await login(await jwksToken(jwksKey2, 'k2'))).statusCode, 200);
    });

    it('refuses when the key set is unreachable, too large, slow or not a key set', async () => {
      const token = async () => jwksToken(jwksKey1, `k-${randomBytes(4).toString('hex')}`);
      const cases: [string, (res: import('node:http').ServerResponse) => void][] = [
        ['oversized', (res) => res.end(JSON.stringify({ keys: [], pad: 'x'.repeat(64 * 1024) }))],
        [
          'oversized without a length',
          (res) => {
            res.write('{"keys":[],"pad":"');
            res.write('x'.repeat(20 * 1024));
            res.end('"}');
          },
        ],
        ['not JSON', (res) => res.end('<html>')],
        [
          'an HTTP error',
          (res) => {
            res.statusCode = 500;
            res.end('{}');
          },
        ],
        ['slow', (res) => setTimeout(() => res.end('{"keys":[]}'), 1_500).unref()],
      ];
      for (const [why, handler] of cases) {
        keys.handler = handler;
        clock += 60_000;
        const started = Date.now();
        await refused(await token(), why);
        assert.ok(Date.now() - started < 1_400, `${why}: answered within the fetch deadline`);
      }
      keys.server.closeAllConnections();
      // Unreachable: a signer whose key set is on a port nothing listens on.
      const dead = createServer();
      await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
      const port = (dead.address() as AddressInfo).port;
      await new Promise<void>((r) => dead.close(() => r()));
      await t.admin.request('PATCH', `/external-jwt-signers/${jwksSigner.id}`, {
        json: { jwksEndpoint: `http://127.0.0.1:${port}/jwks` },
      });
      clock += 60_000;
      await refused(await token(), 'unreachable');
      await t.admin.request('PATCH', `/external-jwt-signers/${jwksSigner.id}`, { json: { jwksEndpoint: jwksUrl } });
      keys.serve([{ kid: 'k1', key: jwksKey1 }]);
    });

    it("follows the identity's auth policy: extJwt allowed, and the signer among allowedSigners", async () => {
      const policy = async (extJwt: Record<string, unknown>) =>
        (
          await t.admin.request('POST', '/auth-policies', {
            json: {
              name: `jwt-policy-${randomBytes(3).toString('hex')}`,
              primary: {
                cert: { allowed: true, allowExpiredCerts: false },
                updb: { ...DEFAULT_UPDB_RULES },
                extJwt,
              },
              secondary: { requireTotp: false, requireExtJwtSigner: null },
            },
          })
        ).body.data.id as string;
      const use = (id: string) => t.admin.request('PATCH', `/identities/${alice}`, { json: { authPolicyId: id } });
      try {
        await use(await policy({ allowed: false, allowedSigners: [] }));
        await refused(await certToken(), 'policy forbids ext-jwt');
        await use(await policy({ allowed: true, allowedSigners: [jwksSigner.id] }));
        await refused(await certToken(), 'signer not among allowedSigners');
        assert.equal((await login(await jwksToken(jwksKey1, 'k1'))).statusCode, 200, 'the allowed signer');
      } finally {
        await use('default');
      }
    });

    it('requires the secondary token of requireExtJwtSigner on every request, beside zt-session', async () => {
      // bob logs in with a password; his policy requires a token of the certificate signer on every request.
      await t.admin.request('POST', '/authenticators', {
        json: { method: 'updb', identityId: bob, username: 'jwt-bob', password: 'Bob-password-1' },
      });
      const p = await t.admin.request('POST', '/auth-policies', {
        json: {
          name: 'needs-jwt',
          primary: {
            cert: { allowed: true, allowExpiredCerts: false },
            updb: { ...DEFAULT_UPDB_RULES },
            extJwt: { allowed: true, allowedSigners: [] },
          },
          secondary: { requireTotp: false, requireExtJwtSigner: certSigner.id },
        },
      });
      assert.equal(p.status, 201, JSON.stringify(p.body));
      await t.admin.request('PATCH', `/identities/${bob}`, { json: { authPolicyId: p.body.data.id } });
      try {
        const session = (
          await t.anonymous.request('POST', `${CLIENT}/authenticate`, {
            query: 'method=password',
            json: { username: 'jwt-bob', password: 'Bob-password-1' },
          })
        ).body.data;
        const get = (path: string, bearer?: string) =>
          t.app.inject({
            method: 'GET',
            url: `${CLIENT}${path}`,
            headers: { 'zt-session': session.token, ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
          });
        const without = await get('/current-identity');
        assert.equal(without.statusCode, 401);
        assert.equal(without.json().error.code, 'UNAUTHORIZED');
        assert.equal(
          (await get('/current-identity', await certToken({ sub: bob }))).statusCode,
          200,
          'with a token naming bob',
        );
        assert.equal(
          (await get('/current-identity', await certToken({ sub: alice }))).statusCode,
          401,
          "alice's token does not do for bob",
        );
        assert.equal(
          (await get('/current-identity', await certToken({ sub: bob, exp: nowS() - 1 }))).statusCode,
          401,
          'an expired token',
        );
        assert.equal(
          (await get('/current-identity', await jwksToken(jwksKey1, 'k1', { sub: bob }))).statusCode,
          401,
          "another signer's token",
        );
        // The session itself stays readable, so the client learns what it owes: an EXT-JWT authQuery.
        const owes = (q: any[]) =>
          q.filter((a) => a.typeId === 'EXT-JWT' && a.id === certSigner.id && a.provider === 'url').length;
        assert.equal(owes(session.authQueries), 1, JSON.stringify(session.authQueries));
        const current = await get('/current-api-session');
        assert.equal(current.statusCode, 200);
        assert.equal(owes(current.json().data.authQueries), 1);
        assert.equal(
          owes((await get('/current-api-session', await certToken({ sub: bob }))).json().data.authQueries),
          0,
          'paid with this request',
        );
        // Open are the routes a session may call before MFA (partialSession), no other: not the recovery codes.
        assert.equal(
          (await get('/current-identity/mfa')).json().error.code,
          'MFA_ENROLLMENT_NOT_STARTED',
          'MFA status stays open',
        );
        assert.equal(
          (await get('/current-identity/mfa/recovery-codes')).statusCode,
          401,
          'recovery codes need the token',
        );
        // Others are not affected.
        assert.equal((await t.user.request('GET', `${CLIENT}/current-identity`)).status, 200);
      } finally {
        await t.admin.request('PATCH', `/identities/${bob}`, { json: { authPolicyId: 'default' } });
      }
    });

    it('counts failed tokens on the login throttle (429 once the address has no attempt left)', async () => {
      const saved = t.app.runtime.loginThrottle;
      t.app.runtime.loginThrottle = new LoginThrottle(DEFAULT_LOGIN_THROTTLE);
      try {
        let last = 0;
        for (let i = 0; i < 12; i++) last = (await login(await certToken({ sub: `nobody-${i}` }))).statusCode;
        assert.equal(last, 429);
      } finally {
        t.app.runtime.loginThrottle = saved;
      }
    });
  });
}
