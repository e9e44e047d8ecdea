// Auth policies: writable with OpenZiti's full shape (checked member by member, normalised on save, signers checked),
// and enforced: the primary methods, the password rules where passwords are set, and the lockout after
// `maxAttempts` failed passwords (with an injected clock, not sleeps). The default policy is editable, not
// deletable; a policy in use and a signer a policy names cannot be deleted.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_LOGIN_THROTTLE, LoginThrottle } from '../../src/controller/auth/throttle.js';
import { opensslCa } from '../helpers/openssl.js';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';
import { DEFAULT_UPDB_RULES } from '../../src/resources/auth-policy.js';

const CLIENT = '/edge/client/v1';

type Policy = { primary: any; secondary: any };
const body = (
  over: {
    name?: string;
    updb?: Record<string, unknown>;
    cert?: Record<string, unknown>;
    extJwt?: Record<string, unknown>;
    secondary?: Record<string, unknown>;
  } = {},
) => ({
  name: over.name ?? `policy-${randomBytes(4).toString('hex')}`,
  primary: {
    cert: { allowed: true, allowExpiredCerts: false, ...over.cert },
    updb: { ...DEFAULT_UPDB_RULES, ...over.updb },
    extJwt: { allowed: true, allowedSigners: [], ...over.extJwt },
  },
  secondary: { requireTotp: false, requireExtJwtSigner: null, ...over.secondary },
});

for (const store of storesUnderTest()) {
  describe(`auth policies (${store})`, () => {
    let t: TestApp;
    let offsetMs = 0;
    const idp = opensslCa('auth-policy-idp', { isCa: false });
    before(async () => {
      t = await createTestApp(store);
      // Lockouts are tested by moving the controller's clock, not by waiting.
      t.app.runtime.clock = () => new Date(Date.now() + offsetMs);
      // Every failure here comes from one address: that bucket is not what these tests are about. The throttle
      // runs on the same moved clock (its username bucket refills during a lockout, as it would).
      t.app.runtime.loginThrottle = new LoginThrottle(
        { ...DEFAULT_LOGIN_THROTTLE, perAddress: { capacity: 10_000, refillPerSecond: 1, maxKeys: 100 } },
        () => Date.now() + offsetMs,
      );
    });
    after(async () => t?.close());

    const create = async (b: ReturnType<typeof body>) => {
      const res = await t.admin.request('POST', '/auth-policies', { json: b });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.data.id as string;
    };
    const get = async (id: string): Promise<Policy & { name: string }> =>
      (await t.admin.request('GET', `/auth-policies/${id}`)).body.data;
    const identity = async (policyId: string, password?: string) => {
      const name = `ap-${randomBytes(4).toString('hex')}`;
      const id = (
        await t.admin.request('POST', '/identities', {
          json: { name, type: 'User', isAdmin: false, authPolicyId: policyId },
        })
      ).body.data.id as string;
      if (password) {
        const res = await t.admin.request('POST', '/authenticators', {
          json: { method: 'updb', identityId: id, username: name, password },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
      }
      return { id, name };
    };
    const login = (username: string, password: string) =>
      t.anonymous.request('POST', `${CLIENT}/authenticate`, { query: 'method=password', json: { username, password } });
    const signer = async () =>
      (
        await t.admin.request('POST', '/external-jwt-signers', {
          json: {
            name: `s-${randomBytes(3).toString('hex')}`,
            enabled: true,
            issuer: `https://${randomBytes(3).toString('hex')}.example`,
            audience: 'ctl',
            certPem: idp.pem,
            kid: 'k',
          },
        })
      ).body.data.id as string;

    it('create, show, patch (members left out keep their value), replace and delete', async () => {
      const id = await create(body({ updb: { minPasswordLength: 10, maxAttempts: 3, lockoutDurationMinutes: 5 } }));
      const shown = await get(id);
      assert.equal(shown.primary.updb.minPasswordLength, 10);
      assert.equal(shown.secondary.requireExtJwtSigner, null);
      const patched = await t.admin.request('PATCH', `/auth-policies/${id}`, {
        json: { primary: { updb: { requireNumberChar: true } } },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      const after = await get(id);
      assert.equal(after.primary.updb.requireNumberChar, true);
      assert.equal(after.primary.updb.minPasswordLength, 10, 'kept');
      assert.equal(after.primary.cert.allowed, true, 'kept');
      const replaced = await t.admin.request('PUT', `/auth-policies/${id}`, {
        json: body({ name: 'replaced-policy' }),
      });
      assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
      assert.equal((await get(id)).primary.updb.minPasswordLength, 5);
      assert.equal((await t.admin.request('DELETE', `/auth-policies/${id}`)).status, 200);
      assert.equal((await t.admin.request('GET', `/auth-policies/${id}`)).status, 404);
    });

    it('refuses a malformed shape with a 400 naming the member; normalises as OpenZiti does', async () => {
      const bad = async (b: unknown, field: string) => {
        const res = await t.admin.request('POST', '/auth-policies', { json: b });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.error.cause?.field, field, JSON.stringify(res.body));
      };
      await bad(body({ updb: { maxAttempts: 'five' } }), 'primary.updb.maxAttempts');
      await bad(body({ cert: { allowed: 'yes' } }), 'primary.cert.allowed');
      await bad(body({ extJwt: { allowedSigners: 'x' } }), 'primary.extJwt.allowedSigners');
      await bad(body({ extJwt: { allowedSigners: ['no-such-signer'] } }), 'primary.extJwt.allowedSigners[0]');
      await bad(body({ secondary: { requireExtJwtSigner: 'no-such-signer' } }), 'secondary.requireExtJwtSigner');
      await bad(body({ updb: { surprise: 1 } }), 'primary.updb.surprise');
      const { primary } = body();
      await bad(
        { name: 'x1', primary: { cert: primary.cert, updb: primary.updb }, secondary: { requireTotp: false } },
        'primary.extJwt',
      );
      const id = await create(body({ updb: { minPasswordLength: 2, maxAttempts: -1, lockoutDurationMinutes: -3 } }));
      const p = await get(id);
      assert.deepEqual(
        [p.primary.updb.minPasswordLength, p.primary.updb.maxAttempts, p.primary.updb.lockoutDurationMinutes],
        [5, 0, 0],
      );
      // A known signer is accepted in both places.
      const s = await signer();
      const ok = await create(body({ extJwt: { allowedSigners: [s] }, secondary: { requireExtJwtSigner: s } }));
      assert.equal((await get(ok)).secondary.requireExtJwtSigner, s);
    });

    it('the default policy can be edited but not deleted', async () => {
      const patched = await t.admin.request('PATCH', '/auth-policies/default', {
        json: { primary: { updb: { minPasswordLength: 6 } } },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.equal((await get('default')).primary.updb.minPasswordLength, 6);
      await t.admin.request('PATCH', '/auth-policies/default', {
        json: { primary: { updb: { minPasswordLength: 5 } } },
      });
      const del = await t.admin.request('DELETE', '/auth-policies/default');
      // OpenZiti answers 409 (its identities always reference the default policy).
      assert.equal(del.status, 409);
      assert.equal(del.body.error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
    });

    it('a policy in use, and a signer a policy names, cannot be deleted (409)', async () => {
      const id = await create(body());
      const { id: identityId } = await identity(id);
      const del = await t.admin.request('DELETE', `/auth-policies/${id}`);
      assert.equal(del.status, 409);
      assert.equal(del.body.error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
      assert.equal(
        (await t.admin.request('PATCH', `/identities/${identityId}`, { json: { authPolicyId: 'no-such-policy' } }))
          .status,
        400,
      );
      for (const where of ['allowed', 'required'] as const) {
        const s = await signer();
        const pid = await create(
          where === 'allowed'
            ? body({ extJwt: { allowedSigners: [s] } })
            : body({ secondary: { requireExtJwtSigner: s } }),
        );
        const refused = await t.admin.request('DELETE', `/external-jwt-signers/${s}`);
        assert.equal(refused.status, 409, where);
        assert.equal(refused.body.error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
        assert.match(refused.body.error.cause.field, where === 'allowed' ? /allowedSigners/ : /requireExtJwtSigner/);
        await t.admin.request('DELETE', `/auth-policies/${pid}`);
        assert.equal(
          (await t.admin.request('DELETE', `/external-jwt-signers/${s}`)).status,
          200,
          'free once the policy is gone',
        );
      }
    });

    it('a primary method the policy does not allow is refused like a wrong password', async () => {
      const id = await create(body({ updb: { allowed: false } }));
      const { name } = await identity(id, 'Good-password-1');
      const res = await login(name, 'Good-password-1');
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'INVALID_AUTH');
      await t.admin.request('PATCH', `/auth-policies/${id}`, { json: { primary: { updb: { allowed: true } } } });
      assert.equal((await login(name, 'Good-password-1')).status, 200);
    });

    it('password rules apply on authenticator create, update, own change, and on updb enrollment', async () => {
      const id = await create(
        body({
          updb: { minPasswordLength: 12, requireSpecialChar: true, requireNumberChar: true, requireMixedCase: true },
        }),
      );
      const { id: identityId, name } = await identity(id);
      const tryCreate = (password: string) =>
        t.admin.request('POST', '/authenticators', { json: { method: 'updb', identityId, username: name, password } });
      const cases: [string, RegExp][] = [
        ['Short-1!', /at least 12 characters/],
        ['No-digits-here!', /digit/],
        ['Nospecial12345', /special character/],
        ['all-lower-case-1!', /upper and lower case/],
      ];
      for (const [password, rule] of cases) {
        const res = await tryCreate(password);
        assert.equal(res.status, 400, password);
        assert.equal(res.body.error.cause.field, 'password');
        assert.match(res.body.error.cause.reason, rule);
      }
      const ok = await tryCreate('Long-enough-pw-1!');
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      const authId = ok.body.data.id;
      assert.equal(
        (await t.admin.request('PATCH', `/authenticators/${authId}`, { json: { password: 'weak' } })).status,
        400,
      );
      const weakPatch = await t.admin.request('PATCH', `/authenticators/${authId}`, {
        json: { password: 'weakbutlongenough' },
      });
      assert.match(weakPatch.body.error.cause.reason, /digit/);
      const session = (await login(name, 'Long-enough-pw-1!')).body.data.token;
      const own = await t.app.inject({
        method: 'PATCH',
        url: `${CLIENT}/current-identity/authenticators/${authId}`,
        headers: { 'zt-session': session, 'content-type': 'application/json' },
        payload: JSON.stringify({ password: 'nodigits-Here!', currentPassword: 'Long-enough-pw-1!' }),
      });
      assert.equal(own.statusCode, 400, own.body);
      // updb enrollment: the enrolling client's password meets the identity's policy.
      const enrolled = await t.admin.request('POST', '/identities', {
        json: {
          name: `enr-${randomBytes(3).toString('hex')}`,
          type: 'User',
          isAdmin: false,
          authPolicyId: id,
          enrollment: { updb: `enr-${randomBytes(3).toString('hex')}` },
        },
      });
      const detail = (await t.admin.request('GET', `/identities/${enrolled.body.data.id}`)).body.data;
      const token = detail.enrollment.updb.token;
      const weak = await t.anonymous.request('POST', `${CLIENT}/enroll/updb`, {
        query: `token=${token}`,
        json: { password: 'Secret-123' },
      });
      assert.equal(weak.status, 400);
      assert.match(weak.body.error.cause.reason, /at least 12/);
      const strong = await t.anonymous.request('POST', `${CLIENT}/enroll/updb`, {
        query: `token=${token}`,
        json: { password: 'Secret-123-long!' },
      });
      assert.equal(strong.status, 200, JSON.stringify(strong.body));
    });

    it('maxAttempts failed passwords lock the identity out for lockoutDurationMinutes; it then logs in', async () => {
      const id = await create(body({ updb: { maxAttempts: 3, lockoutDurationMinutes: 15 } }));
      const { id: identityId, name } = await identity(id, 'Right-password-1');
      for (let i = 0; i < 3; i++) assert.equal((await login(name, `wrong-${i}-password`)).status, 401);
      const locked = await login(name, 'Right-password-1');
      assert.equal(locked.status, 401, 'the right password is refused while locked out');
      assert.equal(locked.body.error.code, 'INVALID_AUTH');
      assert.equal((await t.admin.request('GET', `/identities/${identityId}`)).body.data.disabled, true);
      offsetMs += 14 * 60_000;
      assert.equal((await login(name, 'Right-password-1')).status, 401, 'still locked after 14 minutes');
      offsetMs += 2 * 60_000;
      assert.equal((await login(name, 'Right-password-1')).status, 200, 'the lockout expired');
      // The count started again: two failures do not lock, a success resets.
      for (let i = 0; i < 2; i++) await login(name, `wrong-${i}-again`);
      assert.equal((await login(name, 'Right-password-1')).status, 200);
      // Without maxAttempts there is no lockout (the throttle still slows guessing down).
      const free = await identity(await create(body()), 'Right-password-1');
      for (let i = 0; i < 4; i++) await login(free.name, `wrong-${i}-password`);
      assert.equal((await login(free.name, 'Right-password-1')).status, 200);
    });
  });
}
