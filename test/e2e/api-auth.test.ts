// Authentication and sessions over HTTP: password authentication on both APIs, both token schemes, the current
// API session and identity, management of API sessions, and what a non-admin may and may not do (including
// changing their own password). Every response is validated against the spec by the HTTP helper.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type HttpHelper,
  type TestController,
  assertError,
  assertStatus,
  createUser,
  msFrom,
  randomPassword,
  startTestController,
} from '../helpers/controller.js';
import { type ApiName, operations } from '../helpers/spec.js';

let ctl: TestController;
let admin: HttpHelper;

before(async () => {
  ctl = await startTestController();
  admin = await ctl.admin();
});

after(async () => {
  await ctl?.close();
});

/** POST /authenticate; `method: null` sends no method parameter. */
function authenticate(api: ApiName, body: unknown, method: string | null = 'password') {
  return ctl.api.post('/authenticate', body, { api, query: { method: method ?? undefined }, token: null });
}

describe('password authentication', () => {
  for (const api of ['management', 'client'] as const) {
    it(`authenticates on the ${api} API: 200, token in data.token and the zt-session header`, async () => {
      const at = Date.now();
      const res = await authenticate(api, { username: ctl.adminUser, password: ctl.adminPassword });
      assertStatus(res, 200);
      const s = res.body.data;
      assert.equal(typeof s.token, 'string');
      assert.ok(s.token.length >= 16);
      assert.equal(res.headers['zt-session'], s.token);
      assert.equal(typeof s.id, 'string');
      assert.notEqual(s.id, s.token, 'the session id is not the secret token');
      assert.equal(s.identity.name.length > 0, true);
      assert.equal(s.identity.id, s.identityId);
      assert.equal(s.isMfaRequired, false);
      assert.equal(s.isMfaComplete, false);
      assert.deepEqual(s.authQueries, []);
      assert.ok(s.expirationSeconds > 0);
      assert.ok(msFrom(s.expiresAt, at + s.expirationSeconds * 1000) < 120_000, 'expiresAt ~ now + expirationSeconds');
      assert.equal(typeof s.authenticatorId, 'string');
    });
  }

  it('refuses a wrong password or an unknown user with 401 INVALID_AUTH, on both APIs', async () => {
    for (const api of ['management', 'client'] as const) {
      assertError(
        await authenticate(api, { username: ctl.adminUser, password: `${ctl.adminPassword}x` }),
        401,
        'INVALID_AUTH',
      );
      assertError(await authenticate(api, { username: 'nobody-here', password: 'whatever1' }), 401, 'INVALID_AUTH');
    }
  });

  it('refuses missing credentials with 400 COULD_NOT_VALIDATE and bad methods with 400', async () => {
    assertError(await authenticate('management', { username: ctl.adminUser }), 400, 'COULD_NOT_VALIDATE', 'password');
    assertError(
      await authenticate('management', { password: ctl.adminPassword }),
      400,
      'COULD_NOT_VALIDATE',
      'username',
    );
    assert.equal(
      (await authenticate('management', { username: ctl.adminUser, password: ctl.adminPassword }, 'bogus')).status,
      400,
    );
    assert.equal(
      (await authenticate('management', { username: ctl.adminUser, password: ctl.adminPassword }, null)).status,
      400,
    );
  });
});

describe('session tokens', () => {
  it('accepts the token in zt-session and in Authorization: Bearer', async () => {
    const token = await ctl.api.login(ctl.adminUser, ctl.adminPassword);
    for (const scheme of ['zt-session', 'bearer'] as const) {
      const res = await ctl.api.as(token, scheme).get('/current-api-session');
      assertStatus(res, 200, scheme);
      assert.equal(res.body.data.token, token);
    }
  });

  it('a session from one API works on the other', async () => {
    const token = await ctl.api.login(ctl.adminUser, ctl.adminPassword, 'client');
    assertStatus(await ctl.api.as(token).get('/current-identity', { api: 'management' }), 200);
    assertStatus(await ctl.api.as(token).get('/identities', { api: 'management' }), 200);
  });

  it('no token or a garbage token is 401 UNAUTHORIZED with WWW-Authenticate', async () => {
    for (const token of [null, 'garbage', '00000000-0000-4000-8000-000000000000']) {
      for (const api of ['management', 'client'] as const) {
        const res = await ctl.api.as(token).get('/current-api-session', { api });
        assertError(res, 401, 'UNAUTHORIZED');
        assert.ok(res.headers['www-authenticate'], `WWW-Authenticate on a 401 (${api}, token ${token})`);
      }
    }
  });

  it('GET /current-api-session describes the session; DELETE logs out and the token stops working', async () => {
    for (const api of ['management', 'client'] as const) {
      const token = await ctl.api.login(ctl.adminUser, ctl.adminPassword, api);
      const me = ctl.api.as(token).on(api);
      const res = await me.get('/current-api-session');
      assertStatus(res, 200);
      assert.equal(res.body.data.token, token);
      assert.equal(typeof res.body.data.identityId, 'string');
      const out = await me.delete('/current-api-session');
      assertStatus(out, 200);
      assert.deepEqual(out.body.data, {});
      assertError(await me.get('/current-api-session'), 401, 'UNAUTHORIZED');
      assertError(await me.get('/current-identity'), 401, 'UNAUTHORIZED');
    }
  });

  it('GET /current-identity returns the default admin', async () => {
    for (const api of ['management', 'client'] as const) {
      const res = await admin.get('/current-identity', { api });
      assertStatus(res, 200);
      assert.equal(res.body.data.isAdmin, true);
      assert.equal(res.body.data.isDefaultAdmin, true);
      assert.equal(res.body.data.authenticators?.updb?.username, ctl.adminUser);
    }
  });
});

describe('management of API sessions', () => {
  it('lists, gets and deletes API sessions; a deleted session ends', async () => {
    const victimToken = await ctl.api.login(ctl.adminUser, ctl.adminPassword);
    const victim = ctl.api.as(victimToken);
    const mine = await victim.get('/current-api-session');
    assertStatus(mine, 200);
    const sessionId = mine.body.data.id as string;

    const list = await admin.get('/api-sessions', { query: { limit: -1 } });
    assertStatus(list, 200);
    assert.ok(
      list.body.data.some((s: { id: string }) => s.id === sessionId),
      'the session is listed',
    );
    assert.ok(list.body.meta.pagination.totalCount >= 2);

    const one = await admin.get(`/api-sessions/${sessionId}`);
    assertStatus(one, 200);
    assert.equal(one.body.data.id, sessionId);
    assert.equal(one.body.data.identityId, mine.body.data.identityId);

    const del = await admin.delete(`/api-sessions/${sessionId}`);
    assertStatus(del, 200);
    assertError(await victim.get('/current-api-session'), 401, 'UNAUTHORIZED');
    assertError(await admin.get(`/api-sessions/${sessionId}`), 404, 'NOT_FOUND');
    assertError(await admin.delete(`/api-sessions/${sessionId}`), 404, 'NOT_FOUND');
    // The admin's own session is unaffected.
    assertStatus(await admin.get('/current-api-session'), 200);
  });

  it('filters API sessions by identity', async () => {
    const user = await createUser(admin);
    await ctl.api.login(user.username, user.password);
    const res = await admin.get('/api-sessions', { query: { filter: `identity = "${user.id}"` } });
    assertStatus(res, 200);
    assert.equal(res.body.data.length, 1);
    assert.equal(res.body.data[0].identityId, user.id);
  });
});

describe('non-admin identities', () => {
  let user: Awaited<ReturnType<typeof createUser>>;
  let userApi: HttpHelper;

  before(async () => {
    user = await createUser(admin);
    userApi = await ctl.api.loginAs(user.username, user.password, 'client');
  });

  it('the admin-created updb authenticator has the documented shape and never shows the password', async () => {
    const res = await admin.get(`/authenticators/${user.authenticatorId}`);
    assertStatus(res, 200);
    assert.equal(res.body.data.method, 'updb');
    assert.equal(res.body.data.username, user.username);
    assert.equal(res.body.data.identityId, user.id);
    assert.equal(res.body.data.identity.id, user.id);
    assert.ok(!res.text.includes(user.password));
    assert.ok(!('password' in res.body.data) && !('salt' in res.body.data));
  });

  it('logs in on both APIs and sees itself', async () => {
    await ctl.api.login(user.username, user.password, 'management');
    const me = await userApi.get('/current-identity', { api: 'client' });
    assertStatus(me, 200);
    assert.equal(me.body.data.id, user.id);
    assert.equal(me.body.data.isAdmin, false);
    assert.equal(me.body.data.hasApiSession, true);
  });

  /** The resources of this issue; the rest of the management spec is swept separately. */
  const ISSUE_PATHS =
    /^\/(identities|identity-role-attributes|identity-types|authenticators|api-sessions|enrollments|summary)(\/|$)/;

  async function sweep(select: (template: string) => boolean): Promise<void> {
    const mgmtToken = await ctl.api.login(user.username, user.password, 'management');
    const asUser = ctl.api.as(mgmtToken);
    const adminOps = operations('management').filter(
      (op) =>
        !op.anonymous &&
        !/^\/(current-api-session|current-identity|authenticate)(\/|$)/.test(op.template) &&
        select(op.template),
    );
    assert.ok(adminOps.length > 5, `expected the management spec to list admin operations, got ${adminOps.length}`);
    const countBefore = (await admin.get('/identities', { query: { limit: 1 } })).body.meta.pagination.totalCount;
    const failures: string[] = [];
    for (const op of adminOps) {
      const p = op.template.replace(/\{[^}]+\}/g, 'no-such-id');
      const hasBody = ['POST', 'PUT', 'PATCH'].includes(op.method);
      try {
        const res = await asUser.request(op.method, p, hasBody ? { json: {} } : {});
        if (res.status !== 401 || res.body?.error?.code !== 'UNAUTHORIZED')
          failures.push(`${op.method} ${p}: ${res.status} ${res.text.slice(0, 120)}`);
      } catch (err) {
        failures.push(`${op.method} ${p}: ${(err as Error).message.split('\n').slice(0, 3).join(' | ')}`);
      }
    }
    assert.deepEqual(
      failures,
      [],
      `${failures.length} of ${adminOps.length} admin operations did not answer 401 UNAUTHORIZED`,
    );
    // nothing was written, and the non-admin session itself is still valid
    assert.equal(
      (await admin.get('/identities', { query: { limit: 1 } })).body.meta.pagination.totalCount,
      countBefore,
    );
    assertStatus(await asUser.get('/current-api-session'), 200);
  }

  it('every management operation of the identity resources refuses it with 401 UNAUTHORIZED', async () => {
    await sweep((t) => ISSUE_PATHS.test(t));
  });

  it('every other admin operation of the management spec refuses it with 401 UNAUTHORIZED', async () => {
    await sweep((t) => !ISSUE_PATHS.test(t));
  });

  it('a non-admin sees only its own authenticators under /current-identity', async () => {
    assertStatus(await userApi.get('/current-api-session', { api: 'client' }), 200);
    const list = await userApi.get('/current-identity/authenticators', { api: 'client' });
    assertStatus(list, 200);
    assert.deepEqual(
      list.body.data.map((a: { identityId: string }) => a.identityId),
      [user.id],
      'only its own authenticators',
    );
  });
});

describe("changing one's own password", () => {
  for (const [api, verb] of [
    ['client', 'PUT'],
    ['management', 'PATCH'],
  ] as const) {
    it(`${verb} /current-identity/authenticators/{id} on the ${api} API with currentPassword`, async () => {
      const user = await createUser(admin);
      const me = await ctl.api.on(api).loginAs(user.username, user.password);
      const list = await me.get('/current-identity/authenticators');
      assertStatus(list, 200);
      assert.equal(list.body.data.length, 1);
      const authId = list.body.data[0].id as string;
      assert.equal(authId, user.authenticatorId);
      assertStatus(await me.get(`/current-identity/authenticators/${authId}`), 200);

      const newPassword = randomPassword();
      const body = (currentPassword: string) =>
        verb === 'PUT'
          ? { username: user.username, password: newPassword, currentPassword }
          : { password: newPassword, currentPassword };

      // wrong current password: refused, nothing changes
      const wrong = await me.request(verb, `/current-identity/authenticators/${authId}`, {
        json: body(`${user.password}-wrong`),
      });
      assert.ok(
        [400, 401].includes(wrong.status),
        `a wrong currentPassword is refused (400/401), got ${wrong.status} ${wrong.text}`,
      );
      await ctl.api.login(user.username, user.password);

      // missing current password: refused
      const missing = await me.request(verb, `/current-identity/authenticators/${authId}`, {
        json: verb === 'PUT' ? { username: user.username, password: newPassword } : { password: newPassword },
      });
      assertError(missing, 400, 'COULD_NOT_VALIDATE', 'currentPassword');

      // too short a new password: refused
      const short = await me.request(verb, `/current-identity/authenticators/${authId}`, {
        json: { ...body(user.password), password: 'abc' },
      });
      assertError(short, 400, 'COULD_NOT_VALIDATE', 'password');
      await ctl.api.login(user.username, user.password);

      // right current password: changed
      const ok = await me.request(verb, `/current-identity/authenticators/${authId}`, { json: body(user.password) });
      assertStatus(ok, 200);
      assertError(
        await ctl.api.post(
          '/authenticate',
          { username: user.username, password: user.password },
          { query: { method: 'password' } },
        ),
        401,
        'INVALID_AUTH',
      );
      await ctl.api.login(user.username, newPassword);
      await ctl.api.login(user.username, newPassword, 'client');
    });
  }

  it("cannot change another identity's authenticator through /current-identity", async () => {
    const a = await createUser(admin);
    const b = await createUser(admin);
    const me = await ctl.api.loginAs(a.username, a.password, 'client');
    const res = await me.put(`/current-identity/authenticators/${b.authenticatorId}`, {
      username: b.username,
      password: randomPassword(),
      currentPassword: a.password,
    });
    assertError(res, 404, 'NOT_FOUND');
    await ctl.api.login(b.username, b.password);
  });
});

describe('admin management of authenticators', () => {
  it('an admin replaces and patches a updb authenticator; the old password stops working', async () => {
    const user = await createUser(admin);
    const p2 = randomPassword();
    assertStatus(
      await admin.put(`/authenticators/${user.authenticatorId}`, { username: user.username, password: p2 }),
      200,
    );
    assertError(
      await ctl.api.post(
        '/authenticate',
        { username: user.username, password: user.password },
        { query: { method: 'password' } },
      ),
      401,
      'INVALID_AUTH',
    );
    await ctl.api.login(user.username, p2);
    const p3 = randomPassword();
    assertStatus(await admin.patch(`/authenticators/${user.authenticatorId}`, { password: p3 }), 200);
    await ctl.api.login(user.username, p3);
    const newName = `${user.username}-2`;
    assertStatus(await admin.patch(`/authenticators/${user.authenticatorId}`, { username: newName }), 200);
    await ctl.api.login(newName, p3);
  });

  it('deleting the authenticator stops logins', async () => {
    const user = await createUser(admin);
    assertStatus(await admin.delete(`/authenticators/${user.authenticatorId}`), 200);
    assertError(
      await ctl.api.post(
        '/authenticate',
        { username: user.username, password: user.password },
        { query: { method: 'password' } },
      ),
      401,
      'INVALID_AUTH',
    );
  });

  it('updb usernames are unique', async () => {
    const a = await createUser(admin);
    const b = await createUser(admin);
    const res = await admin.patch(`/authenticators/${b.authenticatorId}`, { username: a.username });
    assertError(res, 400, 'COULD_NOT_VALIDATE', 'username');
  });
});
