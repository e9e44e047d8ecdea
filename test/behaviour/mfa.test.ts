// TOTP MFA, every transition of the state table, in-process on each store: enrollment (initiate, status, QR code,
// verify, disable), recovery codes, the partial session after a password login, the second step, replays,
// throttling, an admin's removal, and an auth policy that requires TOTP. Codes come from the tests' own TOTP
// (test/helpers/totp.ts), not the controller's. Every JSON answer is checked against OpenZiti's Swagger.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';
import { BASE_PATHS, hasOperation, validateResponse } from '../helpers/spec.js';
import { code, secretOf } from '../helpers/totp.js';
import { DEFAULT_UPDB_RULES } from '../../src/resources/auth-policy.js';

const CLIENT = '/edge/client/v1';
const MANAGEMENT = '/edge/management/v1';

interface Answer {
  status: number;
  body: any;
  headers: Record<string, unknown>;
  raw: Buffer;
}

for (const store of storesUnderTest()) {
  describe(`TOTP MFA (${store})`, () => {
    let t: TestApp;
    let serial = 0;

    before(async () => {
      t = await createTestApp(store);
    });
    after(async () => t?.close());

    /** One request through the whole pipeline; JSON answers of spec operations are validated. */
    async function call(
      token: string | undefined,
      method: string,
      url: string,
      opts: { json?: unknown; headers?: Record<string, string> } = {},
    ): Promise<Answer> {
      const headers: Record<string, string> = { ...(token ? { 'zt-session': token } : {}), ...opts.headers };
      if (opts.json !== undefined) headers['content-type'] = 'application/json';
      const res = await t.app.inject({
        method,
        url,
        headers,
        payload: opts.json === undefined ? undefined : JSON.stringify(opts.json),
      });
      const raw = res.rawPayload;
      const isJson = String(res.headers['content-type'] ?? '').includes('json');
      const body = isJson && res.body ? JSON.parse(res.body) : undefined;
      const api = url.startsWith(CLIENT) ? 'client' : 'management';
      const route = url.slice(BASE_PATHS[api].length).split('?')[0];
      if (isJson && hasOperation(api, method, route)) validateResponse(api, method, route, res.statusCode, body);
      return { status: res.statusCode, body, headers: res.headers, raw };
    }

    async function login(username: string, password: string): Promise<{ token: string; session: any }> {
      const res = await call(undefined, 'POST', `${CLIENT}/authenticate?method=password`, {
        json: { username, password },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return { token: res.body.data.token, session: res.body.data };
    }

    /** A fresh non-admin user with a password; its first session. */
    async function newUser(
      authPolicyId?: string,
      isAdmin = false,
    ): Promise<{ id: string; name: string; password: string; token: string }> {
      const name = `mfa-user-${++serial}`;
      const password = 'User-password-1';
      const created = await t.admin.request('POST', '/identities', {
        json: { name, type: 'User', isAdmin, ...(authPolicyId ? { authPolicyId } : {}) },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = created.body.data.id as string;
      const auth = await t.admin.request('POST', '/authenticators', {
        json: { method: 'updb', identityId: id, username: name, password },
      });
      assert.equal(auth.status, 201, JSON.stringify(auth.body));
      return { id, name, password, token: (await login(name, password)).token };
    }

    /** A user that has completed enrollment: its secret and recovery codes. The verify used the step before now. */
    async function enrolledUser(isAdmin = false) {
      const user = await newUser(undefined, isAdmin);
      assert.equal((await call(user.token, 'POST', `${CLIENT}/current-identity/mfa`)).status, 201);
      const status = await call(user.token, 'GET', `${CLIENT}/current-identity/mfa`);
      const secret = secretOf(status.body.data.provisioningUrl);
      const recoveryCodes = status.body.data.recoveryCodes as string[];
      const verified = await call(user.token, 'POST', `${CLIENT}/current-identity/mfa/verify`, {
        json: { code: await code(secret, -1) },
      });
      assert.equal(verified.status, 200, JSON.stringify(verified.body));
      return { ...user, secret, recoveryCodes };
    }

    it('initiate, status, QR code and verify move an enrollment from none to completed', async () => {
      const user = await newUser();
      const none = await call(user.token, 'GET', `${CLIENT}/current-identity/mfa`);
      assert.equal(none.status, 404);
      assert.equal(none.body.error.code, 'MFA_ENROLLMENT_NOT_STARTED');
      assert.equal(
        (await call(user.token, 'GET', `${CLIENT}/current-identity/mfa/qr-code`)).status,
        404,
        'no QR code before initiation',
      );

      const initiated = await call(user.token, 'POST', `${CLIENT}/current-identity/mfa`);
      assert.equal(initiated.status, 201);
      assert.ok(initiated.body.data.id);

      const status = await call(user.token, 'GET', `${CLIENT}/current-identity/mfa`);
      assert.equal(status.status, 200);
      assert.equal(status.body.data.isVerified, false);
      const url = new URL(status.body.data.provisioningUrl);
      assert.equal(url.protocol, 'otpauth:');
      assert.equal(url.host, 'totp');
      assert.match(decodeURIComponent(url.pathname), new RegExp(`${user.name}$`));
      const secret = secretOf(status.body.data.provisioningUrl);
      assert.match(secret, /^[A-Z2-7]{32}$/, '160-bit base32 secret');
      assert.equal(status.body.data.recoveryCodes.length, 20);
      for (const c of status.body.data.recoveryCodes) assert.match(c, /^[A-Z2-7]{6}$/);

      const qr = await call(user.token, 'GET', `${CLIENT}/current-identity/mfa/qr-code`);
      assert.equal(qr.status, 200);
      assert.equal(qr.headers['content-type'], 'image/png');
      assert.deepEqual([...qr.raw.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
      assert.equal(qr.raw.readUInt32BE(16), 256, 'width 256');

      const wrong = await call(user.token, 'POST', `${CLIENT}/current-identity/mfa/verify`, {
        json: { code: (Number(await code(secret)) ^ 1).toString().padStart(6, '0') },
      });
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error.code, 'MFA_INVALID_TOKEN');
      const empty = await call(user.token, 'POST', `${CLIENT}/current-identity/mfa/verify`, { json: {} });
      assert.equal(empty.status, 400, 'code is required');
      const again = await call(user.token, 'POST', `${CLIENT}/current-identity/mfa`);
      assert.equal(again.status, 409, 'an unverified enrollment exists too');
      assert.equal(again.body.error.code, 'MFA_EXISTS');

      const ok = await call(user.token, 'POST', `${CLIENT}/current-identity/mfa/verify`, {
        json: { code: await code(secret) },
      });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));

      const done = await call(user.token, 'GET', `${CLIENT}/current-identity/mfa`);
      assert.equal(done.body.data.isVerified, true);
      assert.equal(done.body.data.provisioningUrl, undefined, 'the secret is no longer shown');
      assert.equal(done.body.data.recoveryCodes, undefined, 'nor the recovery codes');
      assert.equal(
        (await call(user.token, 'GET', `${CLIENT}/current-identity/mfa/qr-code`)).status,
        404,
        'no QR code once completed',
      );
      const completedInitiate = await call(user.token, 'POST', `${CLIENT}/current-identity/mfa`);
      assert.equal(completedInitiate.status, 409);
      assert.equal(completedInitiate.body.error.code, 'MFA_EXISTS');
      assert.equal(
        (
          await call(user.token, 'POST', `${CLIENT}/current-identity/mfa/verify`, {
            json: { code: await code(secret, 1) },
          })
        ).status,
        409,
      );
      // The session that verified has passed MFA: it keeps working.
      assert.equal((await call(user.token, 'GET', `${CLIENT}/current-identity`)).status, 200);
      const identity = await t.admin.request('GET', `/identities/${user.id}`);
      assert.equal(identity.body.data.isMfaEnabled, true);
      // The same paths serve the management API.
      assert.equal((await call(user.token, 'GET', `${MANAGEMENT}/current-identity/mfa`)).body.data.isVerified, true);
    });

    it('a password login when enrolled is partial until POST /authenticate/mfa; a code works once', async () => {
      const user = await enrolledUser();
      const { token, session } = await login(user.name, user.password);
      assert.equal(session.isMfaRequired, true);
      assert.equal(session.isMfaComplete, false);
      assert.deepEqual(session.authQueries, [
        {
          typeId: 'MFA',
          provider: 'ziti',
          format: 'alphaNumeric',
          httpMethod: 'POST',
          httpUrl: './authenticate/mfa',
          minLength: 4,
          maxLength: 6,
          isTotpEnrolled: true,
        },
      ]);
      assert.equal((await call(token, 'GET', `${CLIENT}/current-identity`)).status, 401);
      assert.equal((await call(token, 'GET', `${CLIENT}/services`)).status, 401);
      assert.equal((await call(token, 'GET', `${CLIENT}/current-api-session`)).status, 200);

      // The code of the step the enrollment was verified with is a replay.
      const replay = await call(token, 'POST', `${CLIENT}/authenticate/mfa`, {
        json: { code: await code(user.secret, -1) },
      });
      assert.equal(replay.status, 400);
      assert.equal(replay.body.error.code, 'MFA_INVALID_TOKEN');

      const current = await code(user.secret);
      const ok = await call(token, 'POST', `${CLIENT}/authenticate/mfa`, { json: { code: current } });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      const complete = await call(token, 'GET', `${CLIENT}/current-api-session`);
      assert.equal(complete.body.data.isMfaComplete, true);
      assert.deepEqual(complete.body.data.authQueries, []);
      assert.equal((await call(token, 'GET', `${CLIENT}/current-identity`)).status, 200);

      // Another session may not use the same code again, not even at once.
      const other = await login(user.name, user.password);
      const reused = await call(other.token, 'POST', `${CLIENT}/authenticate/mfa`, { json: { code: current } });
      assert.equal(reused.status, 400);
      // Two sessions racing with one fresh code: exactly one wins.
      const third = await login(user.name, user.password);
      const next = await code(user.secret, 1);
      const raced = await Promise.all(
        [other, third].map((s) => call(s.token, 'POST', `${CLIENT}/authenticate/mfa`, { json: { code: next } })),
      );
      assert.deepEqual(raced.map((r) => r.status).sort(), [200, 400]);
    });

    it('a partial session is refused every operation but the MFA ones', async () => {
      // An admin's: a refusal on the management API is then the partial session's, not the admin check's.
      const user = await enrolledUser(true);
      const { token } = await login(user.name, user.password);
      const allowed = new Set([
        'GET /current-api-session',
        'DELETE /current-api-session',
        'POST /authenticate/mfa',
        'GET /current-identity/mfa',
        'POST /current-identity/mfa',
        'GET /current-identity/mfa/qr-code',
        'POST /current-identity/mfa/verify',
      ]);
      let checked = 0;
      for (const [base, id] of [
        [CLIENT, 'edge-client'],
        [MANAGEMENT, 'edge-management'],
      ] as const) {
        const spec = await call(undefined, 'GET', `${base}/specs/${id}/spec`);
        assert.equal(spec.status, 200);
        for (const [path, item] of Object.entries(
          spec.body.paths as Record<string, Record<string, { security?: unknown[] }>>,
        )) {
          for (const [method, op] of Object.entries(item)) {
            if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
            if (Array.isArray(op.security) && op.security.length === 0) continue; // public
            const key = `${method.toUpperCase()} ${path}`;
            if (allowed.has(key)) continue;
            const url = `${base}${path.replace(/\{\w+\}/g, 'x')}`;
            const res = await call(
              token,
              method.toUpperCase(),
              url,
              method === 'get' || method === 'delete' ? {} : { json: {} },
            );
            assert.equal(res.status, 401, `${key}: ${res.status} ${JSON.stringify(res.body)}`);
            checked++;
          }
        }
      }
      assert.ok(checked > 100, `only ${checked} operations checked`);
      // The allowed ones are served (a status, not a 401).
      assert.equal((await call(token, 'GET', `${CLIENT}/current-identity/mfa`)).status, 200);
      assert.equal((await call(token, 'GET', `${CLIENT}/current-identity/mfa/qr-code`)).status, 404);
      assert.equal((await call(token, 'DELETE', `${CLIENT}/current-api-session`)).status, 200);
    });

    it('recovery codes complete a login once each, are shown for a current code, and can be regenerated', async () => {
      const user = await enrolledUser();
      const first = await login(user.name, user.password);
      const used = user.recoveryCodes[3];
      assert.equal(
        (await call(first.token, 'POST', `${CLIENT}/authenticate/mfa`, { json: { code: used.toLowerCase() } })).status,
        200,
        'read without regard to case',
      );
      const second = await login(user.name, user.password);
      const again = await call(second.token, 'POST', `${CLIENT}/authenticate/mfa`, { json: { code: used } });
      assert.equal(again.status, 400, 'a recovery code works once');
      assert.equal(
        (await call(second.token, 'POST', `${CLIENT}/authenticate/mfa`, { json: { code: user.recoveryCodes[4] } }))
          .status,
        200,
      );

      const recoveryCodes = async (mfaCode: string) =>
        call(first.token, 'GET', `${CLIENT}/current-identity/mfa/recovery-codes`, {
          headers: { 'mfa-validation-code': mfaCode },
        });
      assert.equal((await recoveryCodes('')).status, 400, 'no code, no codes');
      const view = await recoveryCodes(await code(user.secret));
      assert.equal(view.status, 200, JSON.stringify(view.body));
      assert.deepEqual(
        view.body.data.recoveryCodes,
        user.recoveryCodes.filter((_, i) => i !== 3 && i !== 4),
        'the unused ones',
      );

      const wrong = await call(first.token, 'POST', `${CLIENT}/current-identity/mfa/recovery-codes`, {
        json: { code: '000000' },
      });
      assert.equal(wrong.status, 400);
      const byRecovery = await call(first.token, 'POST', `${CLIENT}/current-identity/mfa/recovery-codes`, {
        json: { code: user.recoveryCodes[5] },
      });
      assert.equal(byRecovery.status, 400, 'regeneration takes a TOTP code, not a recovery code');
      // The current step's code was spent on the view: the next step's (within the allowed skew).
      const regenerated = await call(first.token, 'POST', `${CLIENT}/current-identity/mfa/recovery-codes`, {
        json: { code: await code(user.secret, 1) },
      });
      assert.equal(regenerated.status, 200, JSON.stringify(regenerated.body));
      const fresh = regenerated.body.data.recoveryCodes as string[];
      assert.equal(fresh.length, 20);
      assert.equal(fresh.filter((c) => user.recoveryCodes.includes(c)).length, 0);

      const third = await login(user.name, user.password);
      assert.equal(
        (await call(third.token, 'POST', `${CLIENT}/authenticate/mfa`, { json: { code: user.recoveryCodes[6] } }))
          .status,
        400,
        'old codes are gone',
      );
      assert.equal(
        (await call(third.token, 'POST', `${CLIENT}/authenticate/mfa`, { json: { code: fresh[0] } })).status,
        200,
      );

      assert.deepEqual((await recoveryCodes(await code(user.secret, 2))).body.data.recoveryCodes, fresh.slice(1));
    });

    it('disable needs a current code in mfa-validation-code once completed; unverified: an empty code', async () => {
      const user = await enrolledUser();
      const { token } = await login(user.name, user.password);
      assert.equal(
        (await call(token, 'POST', `${CLIENT}/authenticate/mfa`, { json: { code: await code(user.secret) } })).status,
        200,
      );
      assert.equal((await call(token, 'DELETE', `${CLIENT}/current-identity/mfa`)).status, 400, 'no header');
      assert.equal(
        (await call(token, 'DELETE', `${CLIENT}/current-identity/mfa`, { headers: { 'mfa-validation-code': '123' } }))
          .status,
        400,
      );
      const disabled = await call(token, 'DELETE', `${CLIENT}/current-identity/mfa`, {
        headers: { 'mfa-validation-code': await code(user.secret, 1) },
      });
      assert.equal(disabled.status, 200, JSON.stringify(disabled.body));
      assert.equal((await call(token, 'GET', `${CLIENT}/current-identity/mfa`)).status, 404);
      assert.equal(
        (await call(token, 'DELETE', `${CLIENT}/current-identity/mfa`, { headers: { 'mfa-validation-code': '' } }))
          .status,
        404,
      );
      const after = await login(user.name, user.password);
      assert.equal(after.session.isMfaRequired, false, 'no second factor once disabled');
      assert.equal((await call(after.token, 'GET', `${CLIENT}/current-identity`)).status, 200);

      assert.equal((await call(after.token, 'POST', `${CLIENT}/current-identity/mfa`)).status, 201);
      const unverified = await call(after.token, 'DELETE', `${CLIENT}/current-identity/mfa`, {
        headers: { 'mfa-validation-code': '' },
      });
      assert.equal(unverified.status, 200);
      assert.equal((await call(after.token, 'GET', `${CLIENT}/current-identity/mfa`)).status, 404);
    });

    it('an admin removes MFA from an identity', async () => {
      const user = await enrolledUser();
      assert.equal(
        (await call(user.token, 'DELETE', `${MANAGEMENT}/identities/${user.id}/mfa`)).status,
        401,
        'admins only',
      );
      const removed = await t.admin.request('DELETE', `/identities/${user.id}/mfa`);
      assert.equal(removed.status, 200, JSON.stringify(removed.body));
      assert.equal(
        (await t.admin.request('DELETE', `/identities/${user.id}/mfa`)).status,
        404,
        'nothing left to remove',
      );
      assert.equal((await t.admin.request('DELETE', '/identities/no-such-identity/mfa')).status, 404);
      assert.equal((await t.admin.request('GET', `/identities/${user.id}`)).body.data.isMfaEnabled, false);
      const after = await login(user.name, user.password);
      assert.equal(after.session.isMfaRequired, false);
    });

    it('an enrollment goes with its identity, and counts in the summary as mfas', async () => {
      const user = await enrolledUser();
      const before = (await t.admin.request('GET', '/summary')).body.data.mfas as number;
      assert.ok(before >= 1);
      assert.equal((await t.admin.request('DELETE', `/identities/${user.id}`)).status, 200);
      assert.equal(await t.app.runtime.store.repo('mfa').count({ identityId: user.id }), 0);
      assert.equal((await t.admin.request('GET', '/summary')).body.data.mfas, before - 1);
    });

    it('wrong codes are throttled per identity: 429 with Retry-After, even for the right code', async () => {
      const user = await enrolledUser();
      const { token } = await login(user.name, user.password);
      for (let i = 0; i < 5; i++) {
        const res = await call(token, 'POST', `${CLIENT}/authenticate/mfa`, { json: { code: String(100000 + i) } });
        assert.equal(res.status, 400, `attempt ${i + 1}`);
      }
      const other = await login(user.name, user.password);
      const limited = await call(other.token, 'POST', `${CLIENT}/authenticate/mfa`, {
        json: { code: await code(user.secret) },
      });
      assert.equal(limited.status, 429);
      assert.equal(limited.body.error.code, 'SERVER_TOO_MANY_REQUESTS');
      assert.ok(Number(limited.headers['retry-after']) > 0);
      // Guesses sent all at once are counted one by one: five wrong, then 429s.
      const burster = await enrolledUser();
      const burst = await login(burster.name, burster.password);
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          call(burst.token, 'POST', `${CLIENT}/authenticate/mfa`, { json: { code: String(200000 + i) } }),
        ),
      );
      assert.deepEqual(answers.map((a) => a.status).sort(), [400, 400, 400, 400, 400, 429, 429, 429]);
      // Another identity is not slowed.
      const bystander = await enrolledUser();
      const b = await login(bystander.name, bystander.password);
      assert.equal(
        (await call(b.token, 'POST', `${CLIENT}/authenticate/mfa`, { json: { code: await code(bystander.secret) } }))
          .status,
        200,
      );
    });

    it('an auth policy requiring TOTP makes logins partial, and the identity enrolls in that session', async () => {
      const created = await t.admin.request('POST', '/auth-policies', {
        json: {
          name: `totp-required-${++serial}`,
          primary: {
            cert: { allowed: true, allowExpiredCerts: true },
            updb: { ...DEFAULT_UPDB_RULES },
            extJwt: { allowed: false, allowedSigners: [] },
          },
          secondary: { requireTotp: true, requireExtJwtSigner: null },
        },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const policyId = created.body.data.id as string;
      const user = await newUser(policyId);
      const { token, session } = await login(user.name, user.password);
      assert.equal(session.isMfaRequired, true);
      assert.equal(session.authQueries[0].isTotpEnrolled, false);
      assert.equal((await call(user.token, 'GET', `${CLIENT}/current-identity`)).status, 401);
      const notEnrolled = await call(token, 'POST', `${CLIENT}/authenticate/mfa`, { json: { code: '123456' } });
      assert.equal(notEnrolled.status, 409);
      assert.equal(notEnrolled.body.error.code, 'MFA_NOT_ENROLLED');
      assert.equal((await call(token, 'POST', `${CLIENT}/current-identity/mfa`)).status, 201);
      const secret = secretOf((await call(token, 'GET', `${CLIENT}/current-identity/mfa`)).body.data.provisioningUrl);
      assert.equal(
        (await call(token, 'DELETE', `${CLIENT}/current-identity/mfa`, { headers: { 'mfa-validation-code': '' } }))
          .status,
        401,
        'disabling needs a full session',
      );
      assert.equal(
        (await call(token, 'POST', `${CLIENT}/current-identity/mfa/verify`, { json: { code: await code(secret) } }))
          .status,
        200,
      );
      assert.equal(
        (await call(token, 'GET', `${CLIENT}/current-identity`)).status,
        200,
        'verifying passed MFA for this session',
      );
      const next = await login(user.name, user.password);
      assert.equal(next.session.authQueries[0].isTotpEnrolled, true);
    });
  });
}
