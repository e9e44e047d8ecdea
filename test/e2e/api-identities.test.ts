// Identities over HTTP (management API): the whole write model (interface document, "Identity"), every verb,
// role attributes and role filters, disable/enable, sub-lists and enrollments created with the identity.
// Every response is validated against management.yml by the HTTP helper.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type HttpHelper,
  type TestController,
  assertError,
  assertStatus,
  createIdentity,
  createUser,
  msFrom,
  startTestController,
  unique,
} from '../helpers/controller.js';
import { verifyEnrollmentJwt } from '../helpers/jwt.js';

let ctl: TestController;
let admin: HttpHelper;

before(async () => {
  ctl = await startTestController();
  admin = await ctl.admin();
});

after(async () => {
  await ctl?.close();
});

async function getIdentity(id: string): Promise<Record<string, any>> {
  const res = await admin.get(`/identities/${id}`);
  assertStatus(res, 200, `GET /identities/${id}`);
  return res.body.data;
}

async function identityCount(): Promise<number> {
  const res = await admin.get('/identities', { query: { limit: 1 } });
  assertStatus(res, 200);
  return res.body.meta.pagination.totalCount as number;
}

function fullBody(name: string): Record<string, unknown> {
  return {
    name,
    type: 'User',
    isAdmin: false,
    roleAttributes: ['sales', 'emea'],
    externalId: unique('ext'),
    authPolicyId: 'default',
    appData: { team: 'blue', nested: { depth: 2, list: [1, 2] } },
    defaultHostingCost: 100,
    defaultHostingPrecedence: 'required',
    serviceHostingCosts: { 'svc-a': 7, 'svc-b': 65535 },
    serviceHostingPrecedences: { 'svc-a': 'failed', 'svc-b': 'default' },
    tags: { owner: 'ops', critical: true, note: null },
  };
}

function sorted(a: unknown): string[] {
  return [...((a as string[] | null) ?? [])].sort();
}

describe('identity create', () => {
  it('returns 201 with {data:{id,_links:{self}},meta:{}}', async () => {
    const name = unique('shape');
    const res = await admin.post('/identities', { name, type: 'User', isAdmin: false });
    assertStatus(res, 201);
    const id = res.body.data.id;
    assert.equal(typeof id, 'string');
    assert.ok(id.length > 0);
    assert.deepEqual(res.body, { data: { id, _links: { self: { href: `./identities/${id}` } } }, meta: {} });
  });

  it('stores every field of the write model and returns it on GET', async () => {
    const name = unique('full');
    const body = fullBody(name);
    const id = await createIdentity(admin, body);
    const got = await getIdentity(id);
    assert.equal(got.id, id);
    assert.equal(got.name, name);
    // The API accepts every identityType value; create stores the built-in type Default (wire-protocol section 10).
    assert.equal(got.typeId, 'Default');
    assert.equal(got.type.id, 'Default');
    assert.equal(got.type.name, 'Default');
    assert.equal(got.isAdmin, false);
    assert.equal(got.isDefaultAdmin, false);
    assert.deepEqual(sorted(got.roleAttributes), ['emea', 'sales']);
    assert.equal(got.externalId, body.externalId);
    assert.equal(got.authPolicyId, 'default');
    assert.equal(got.authPolicy.id, 'default');
    assert.equal(got.authPolicy.name, 'Default');
    assert.deepEqual(got.appData, body.appData);
    assert.equal(got.defaultHostingCost, 100);
    assert.equal(got.defaultHostingPrecedence, 'required');
    assert.deepEqual(got.serviceHostingCosts, body.serviceHostingCosts);
    assert.deepEqual(got.serviceHostingPrecedences, body.serviceHostingPrecedences);
    assert.deepEqual(got.tags, body.tags);
    assert.equal(got.disabled, false);
    assert.equal(got.hasApiSession, false);
    assert.equal(got._links.self.href, `./identities/${id}`);
    assert.ok(Date.parse(got.createdAt) > 0 && Date.parse(got.updatedAt) >= Date.parse(got.createdAt));
  });

  it('fills documented defaults, including the default auth policy', async () => {
    const id = await createIdentity(admin, { name: unique('minimal'), type: 'Device', isAdmin: false });
    const got = await getIdentity(id);
    assert.equal(got.authPolicyId, 'default');
    assert.equal(got.authPolicy?.id, 'default');
    assert.equal(got.defaultHostingCost, 0);
    assert.equal(got.defaultHostingPrecedence, 'default');
    assert.equal(got.externalId, null);
    assert.deepEqual(got.tags, {});
    assert.deepEqual(sorted(got.roleAttributes), []);
    assert.equal(got.disabled, false);
    assert.equal(got.typeId, 'Default');
  });

  it('accepts every identityType value and both bounds of defaultHostingCost', async () => {
    // As in OpenZiti, every accepted type is stored as the built-in Default type.
    for (const type of ['User', 'Device', 'Service', 'Router', 'Default']) {
      const id = await createIdentity(admin, { name: unique(`type-${type}`), type, isAdmin: false });
      assert.equal((await getIdentity(id)).typeId, 'Default');
    }
    for (const cost of [0, 65535]) {
      const id = await createIdentity(admin, { name: unique('cost'), defaultHostingCost: cost });
      assert.equal((await getIdentity(id)).defaultHostingCost, cost);
    }
  });

  it('creates admins when asked', async () => {
    const id = await createIdentity(admin, { name: unique('admin2'), isAdmin: true });
    const got = await getIdentity(id);
    assert.equal(got.isAdmin, true);
    assert.equal(got.isDefaultAdmin, false);
  });

  for (const field of ['name', 'type', 'isAdmin']) {
    it(`requires ${field} (400 COULD_NOT_VALIDATE, nothing written)`, async () => {
      const before = await identityCount();
      const body: Record<string, unknown> = { name: unique('req'), type: 'User', isAdmin: false };
      delete body[field];
      assertError(await admin.post('/identities', body), 400, 'COULD_NOT_VALIDATE', field);
      assert.equal(await identityCount(), before);
    });
  }

  const invalid: Array<[string, unknown]> = [
    ['type', 'Robot'],
    ['defaultHostingPrecedence', 'sometimes'],
    ['defaultHostingCost', -1],
    ['defaultHostingCost', 65536],
    ['defaultHostingCost', 1.5],
    ['serviceHostingCosts', { 'svc-a': 70000 }],
    ['serviceHostingPrecedences', { 'svc-a': 'always' }],
    ['isAdmin', 'yes'],
    ['roleAttributes', 'sales'],
  ];
  for (const [field, value] of invalid) {
    it(`rejects ${field}=${JSON.stringify(value)} with 400 COULD_NOT_VALIDATE`, async () => {
      const before = await identityCount();
      const res = await admin.post('/identities', {
        name: unique('bad'),
        type: 'User',
        isAdmin: false,
        [field]: value,
      });
      const err = assertError(res, 400, 'COULD_NOT_VALIDATE');
      assert.ok(err.cause, 'a cause is given');
      assert.ok(
        String(err.cause.field ?? '').startsWith(field),
        `cause.field names ${field}: ${JSON.stringify(err.cause)}`,
      );
      assert.equal(await identityCount(), before);
    });
  }

  it('rejects role attributes prefixed with # or @', async () => {
    for (const attr of ['#sales', '@abc']) {
      const res = await admin.post('/identities', {
        name: unique('prefixed'),
        type: 'User',
        isAdmin: false,
        roleAttributes: [attr],
      });
      const err = assertError(res, 400, 'COULD_NOT_VALIDATE');
      assert.ok(err.cause, 'a cause is given');
    }
  });

  it('keeps name unique: 400 COULD_NOT_VALIDATE with cause {field, reason, value}', async () => {
    const name = unique('dup');
    await createIdentity(admin, { name });
    const before = await identityCount();
    const err = assertError(
      await admin.post('/identities', { name, type: 'User', isAdmin: false }),
      400,
      'COULD_NOT_VALIDATE',
      'name',
    );
    assert.equal(err.cause.value, name);
    assert.ok(err.cause.reason.length > 0);
    assert.equal(await identityCount(), before);
  });

  it('keeps externalId unique, but allows many nulls', async () => {
    const ext = unique('ext');
    await createIdentity(admin, { name: unique('ext-a'), externalId: ext });
    const err = assertError(
      await admin.post('/identities', { name: unique('ext-b'), type: 'User', isAdmin: false, externalId: ext }),
      400,
      'COULD_NOT_VALIDATE',
      'externalId',
    );
    assert.equal(err.cause.value, ext);
    await createIdentity(admin, { name: unique('null-ext-1'), externalId: null });
    await createIdentity(admin, { name: unique('null-ext-2'), externalId: null });
  });

  it('accepts [] and null roleAttributes', async () => {
    const a = await createIdentity(admin, { name: unique('ra-empty'), roleAttributes: [] });
    const b = await createIdentity(admin, { name: unique('ra-null'), roleAttributes: null });
    assert.deepEqual(sorted((await getIdentity(a)).roleAttributes), []);
    assert.deepEqual(sorted((await getIdentity(b)).roleAttributes), []);
  });

  it('creates an ott enrollment with the identity: visible on the identity, with a JWT', async () => {
    const id = await createIdentity(admin, { name: unique('ott'), enrollment: { ott: true } });
    const got = await getIdentity(id);
    const ott = got.enrollment?.ott;
    assert.ok(ott, `enrollment.ott is present: ${JSON.stringify(got.enrollment)}`);
    for (const k of ['id', 'jwt', 'token', 'expiresAt']) assert.equal(typeof ott[k], 'string', `enrollment.ott.${k}`);
    assert.ok(Date.parse(ott.expiresAt) > Date.now());
    const claims = await verifyEnrollmentJwt(ott.jwt, ctl, { em: 'ott', sub: id, jti: ott.token });
    assert.ok(Math.abs(claims.exp * 1000 - Date.parse(ott.expiresAt)) < 2000, 'exp matches expiresAt');

    const list = await admin.get(`/identities/${id}/enrollments`);
    assertStatus(list, 200);
    assert.equal(list.body.data.length, 1);
    assert.equal(list.body.data[0].method, 'ott');
    assert.equal(list.body.data[0].id, ott.id);
    assert.equal(list.body.data[0].identityId, id);
  });

  it('creates a updb enrollment with the identity: visible on the identity, with a JWT and the username', async () => {
    const id = await createIdentity(admin, { name: unique('updb'), enrollment: { updb: 'laptop-user' } });
    const got = await getIdentity(id);
    const updb = got.enrollment?.updb;
    assert.ok(updb, `enrollment.updb is present: ${JSON.stringify(got.enrollment)}`);
    for (const k of ['id', 'jwt', 'token', 'expiresAt']) assert.equal(typeof updb[k], 'string', `enrollment.updb.${k}`);
    await verifyEnrollmentJwt(updb.jwt, ctl, { em: 'updb', sub: id, jti: updb.token });
    const list = await admin.get(`/identities/${id}/enrollments`);
    assertStatus(list, 200);
    assert.equal(list.body.data.length, 1);
    assert.equal(list.body.data[0].method, 'updb');
    assert.equal(list.body.data[0].username, 'laptop-user');
  });

  it('an identity without enrollment has none', async () => {
    const id = await createIdentity(admin, { name: unique('no-enroll') });
    const list = await admin.get(`/identities/${id}/enrollments`);
    assertStatus(list, 200);
    assert.deepEqual(list.body.data, []);
  });
});

describe('identity replace (PUT) and patch (PATCH)', () => {
  it('PATCH changes only the fields it carries', async () => {
    const id = await createIdentity(admin, fullBody(unique('patch')));
    const beforeGet = await getIdentity(id);
    const res = await admin.patch(`/identities/${id}`, { roleAttributes: ['finance'] });
    assertStatus(res, 200);
    assert.deepEqual(res.body, { data: {}, meta: {} });
    const afterGet = await getIdentity(id);
    assert.deepEqual(afterGet.roleAttributes, ['finance']);
    const strip = (o: Record<string, any>) => {
      const { roleAttributes: _r, updatedAt: _u, ...rest } = o;
      return rest;
    };
    assert.deepEqual(strip(afterGet), strip(beforeGet));
    assert.ok(Date.parse(afterGet.updatedAt) >= Date.parse(beforeGet.updatedAt));
  });

  it('PATCH of each field alone', async () => {
    const id = await createIdentity(admin, fullBody(unique('patch-each')));
    const changes: Record<string, unknown> = {
      name: unique('renamed'),
      isAdmin: true,
      externalId: unique('ext2'),
      appData: { other: true },
      defaultHostingCost: 5,
      defaultHostingPrecedence: 'failed',
      serviceHostingCosts: { 'svc-z': 1 },
      serviceHostingPrecedences: { 'svc-z': 'required' },
      tags: { moved: 'yes' },
      type: 'Device',
      authPolicyId: 'default',
    };
    for (const [field, value] of Object.entries(changes)) {
      const before = await getIdentity(id);
      assertStatus(await admin.patch(`/identities/${id}`, { [field]: value }), 200, `PATCH ${field}`);
      const after = await getIdentity(id);
      if (field === 'type') assert.equal(after.typeId, 'Default');
      else assert.deepEqual(after[field], value, `PATCH ${field}`);
      for (const other of Object.keys(changes)) {
        if (other !== field && other !== 'type')
          assert.deepEqual(after[other], before[other], `PATCH ${field} left ${other} alone`);
      }
    }
  });

  it('PATCH {} changes nothing', async () => {
    const id = await createIdentity(admin, fullBody(unique('patch-empty')));
    const before = await getIdentity(id);
    assertStatus(await admin.patch(`/identities/${id}`, {}), 200);
    const after = await getIdentity(id);
    const { updatedAt: _a, ...b } = before;
    const { updatedAt: _b, ...a } = after;
    assert.deepEqual(a, b);
  });

  it('PATCH with [] and null roleAttributes clears them', async () => {
    const id = await createIdentity(admin, { name: unique('clear'), roleAttributes: ['x', 'y'] });
    assertStatus(await admin.patch(`/identities/${id}`, { roleAttributes: [] }), 200);
    assert.deepEqual(sorted((await getIdentity(id)).roleAttributes), []);
    assertStatus(await admin.patch(`/identities/${id}`, { roleAttributes: ['z'] }), 200);
    assertStatus(await admin.patch(`/identities/${id}`, { roleAttributes: null }), 200);
    assert.deepEqual(sorted((await getIdentity(id)).roleAttributes), []);
  });

  it('PUT replaces every updatable field; absent optional fields go back to their defaults', async () => {
    const id = await createIdentity(admin, fullBody(unique('put')));
    const name = unique('put-new');
    const res = await admin.put(`/identities/${id}`, { name, type: 'User', isAdmin: true });
    assertStatus(res, 200);
    assert.deepEqual(res.body, { data: {}, meta: {} });
    const got = await getIdentity(id);
    assert.equal(got.name, name);
    assert.equal(got.isAdmin, true);
    assert.deepEqual(sorted(got.roleAttributes), []);
    assert.equal(got.externalId, null);
    assert.deepEqual(got.tags, {});
    assert.equal(got.defaultHostingCost, 0);
    assert.equal(got.defaultHostingPrecedence, 'default');
    assert.equal(got.authPolicyId, 'default');
  });

  it('PUT with the full write model stores all of it', async () => {
    const id = await createIdentity(admin, { name: unique('put-full') });
    const body = fullBody(unique('put-full-2'));
    assertStatus(await admin.put(`/identities/${id}`, body), 200);
    const got = await getIdentity(id);
    for (const field of [
      'name',
      'isAdmin',
      'externalId',
      'appData',
      'defaultHostingCost',
      'defaultHostingPrecedence',
      'serviceHostingCosts',
      'serviceHostingPrecedences',
      'tags',
      'authPolicyId',
    ]) {
      assert.deepEqual(got[field], body[field], field);
    }
    assert.deepEqual(sorted(got.roleAttributes), sorted(body.roleAttributes));
  });

  for (const field of ['name', 'type', 'isAdmin']) {
    it(`PUT requires ${field}; the identity is unchanged`, async () => {
      const id = await createIdentity(admin, fullBody(unique('put-req')));
      const before = await getIdentity(id);
      const body: Record<string, unknown> = { name: unique('x'), type: 'User', isAdmin: false };
      delete body[field];
      assertError(await admin.put(`/identities/${id}`, body), 400, 'COULD_NOT_VALIDATE', field);
      assert.deepEqual(await getIdentity(id), before);
    });
  }

  it('PUT and PATCH do not accept enrollment', async () => {
    const id = await createIdentity(admin, { name: unique('no-enroll-update') });
    const before = await getIdentity(id);
    assertError(
      await admin.put(`/identities/${id}`, {
        name: before.name,
        type: 'User',
        isAdmin: false,
        enrollment: { ott: true },
      }),
      400,
      'COULD_NOT_VALIDATE',
      'enrollment',
    );
    assertError(
      await admin.patch(`/identities/${id}`, { enrollment: { ott: true } }),
      400,
      'COULD_NOT_VALIDATE',
      'enrollment',
    );
    assert.deepEqual(await getIdentity(id), before);
  });

  it('renaming onto an existing name or externalId is refused, for PUT and PATCH', async () => {
    const takenName = unique('taken');
    const takenExt = unique('taken-ext');
    await createIdentity(admin, { name: takenName, externalId: takenExt });
    const id = await createIdentity(admin, { name: unique('mover') });
    const before = await getIdentity(id);
    assertError(await admin.patch(`/identities/${id}`, { name: takenName }), 400, 'COULD_NOT_VALIDATE', 'name');
    assertError(
      await admin.put(`/identities/${id}`, { name: takenName, type: 'User', isAdmin: false }),
      400,
      'COULD_NOT_VALIDATE',
      'name',
    );
    assertError(
      await admin.patch(`/identities/${id}`, { externalId: takenExt }),
      400,
      'COULD_NOT_VALIDATE',
      'externalId',
    );
    assert.deepEqual(await getIdentity(id), before);
  });

  it('PATCH enforces bounds and enums too', async () => {
    const id = await createIdentity(admin, { name: unique('patch-bounds') });
    const before = await getIdentity(id);
    assertError(
      await admin.patch(`/identities/${id}`, { defaultHostingCost: 65536 }),
      400,
      'COULD_NOT_VALIDATE',
      'defaultHostingCost',
    );
    assertError(
      await admin.patch(`/identities/${id}`, { defaultHostingPrecedence: 'x' }),
      400,
      'COULD_NOT_VALIDATE',
      'defaultHostingPrecedence',
    );
    assertError(await admin.patch(`/identities/${id}`, { type: 'Robot' }), 400, 'COULD_NOT_VALIDATE', 'type');
    assert.deepEqual(await getIdentity(id), before);
  });
});

describe('identity delete', () => {
  it('deletes, then GET and DELETE give 404 NOT_FOUND; its authenticators and enrollments go too', async () => {
    const user = await createUser(admin);
    // a second identity with an enrollment: its enrollment must go with it
    const enrolled = await createIdentity(admin, { name: unique('del-enrolled'), enrollment: { ott: true } });
    const enrollments = await admin.get(`/identities/${enrolled}/enrollments`);
    assertStatus(enrollments, 200);
    const enrollmentId = enrollments.body.data[0]?.id as string;
    assert.ok(enrollmentId, 'the ott enrollment is listed');
    assertStatus(await admin.delete(`/identities/${enrolled}`), 200);
    assertError(await admin.get(`/enrollments/${enrollmentId}`), 404, 'NOT_FOUND');
    assert.deepEqual((await admin.get(`/identities/${enrolled}/enrollments`)).body.data, [], 'none listed under it');
    const res = await admin.delete(`/identities/${user.id}`);
    assertStatus(res, 200);
    assert.deepEqual(res.body, { data: {}, meta: {} });
    assertError(await admin.get(`/identities/${user.id}`), 404, 'NOT_FOUND');
    assertError(await admin.delete(`/identities/${user.id}`), 404, 'NOT_FOUND');
    assertError(await admin.get(`/authenticators/${user.authenticatorId}`), 404, 'NOT_FOUND');
    const login = await ctl.api.post(
      '/authenticate',
      { username: user.username, password: user.password },
      { query: { method: 'password' } },
    );
    assertError(login, 401, 'INVALID_AUTH');
  });
});

describe('role attributes and role filters', () => {
  const tag = unique('rf').replace(/-/g, '');
  let a: string;
  let b: string;
  let c: string;

  before(async () => {
    a = await createIdentity(admin, { name: unique('rf-a'), roleAttributes: [`${tag}x`, `${tag}y`] });
    b = await createIdentity(admin, { name: unique('rf-b'), roleAttributes: [`${tag}x`] });
    c = await createIdentity(admin, { name: unique('rf-c'), roleAttributes: [`${tag}y`] });
  });

  async function roleFiltered(roleFilter: string[], roleSemantic?: string): Promise<string[]> {
    const res = await admin.get('/identities', { query: { roleFilter, roleSemantic, limit: -1 } });
    assertStatus(res, 200);
    return (res.body.data as Array<{ id: string }>)
      .map((i) => i.id)
      .filter((id) => [a, b, c].includes(id))
      .sort();
  }

  it('roleFilter with AllOf (the default) and AnyOf', async () => {
    assert.deepEqual(await roleFiltered([`#${tag}x`, `#${tag}y`]), [a].sort());
    assert.deepEqual(await roleFiltered([`#${tag}x`, `#${tag}y`], 'AllOf'), [a].sort());
    assert.deepEqual(await roleFiltered([`#${tag}x`, `#${tag}y`], 'AnyOf'), [a, b, c].sort());
    assert.deepEqual(await roleFiltered([`#${tag}x`]), [a, b].sort());
  });

  it('roleFilter by @id, and #all', async () => {
    assert.deepEqual(await roleFiltered([`@${c}`]), [c]);
    assert.deepEqual(await roleFiltered([`@${c}`, `#${tag}x`], 'AnyOf'), [a, b, c].sort());
    assert.deepEqual(await roleFiltered(['#all']), [a, b, c].sort());
  });

  it('roleFilter combines with filter', async () => {
    const res = await admin.get('/identities', {
      query: { roleFilter: [`#${tag}x`], filter: `id = "${b}"` },
    });
    assertStatus(res, 200);
    assert.deepEqual(
      res.body.data.map((i: { id: string }) => i.id),
      [b],
    );
  });

  it('an unknown roleSemantic is refused', async () => {
    const res = await admin.get('/identities', { query: { roleFilter: [`#${tag}x`], roleSemantic: 'SomeOf' } });
    assert.equal(res.status, 400, res.text);
  });

  it('/identity-role-attributes lists the attributes in use, once each', async () => {
    const res = await admin.get('/identity-role-attributes', { query: { limit: -1 } });
    assertStatus(res, 200);
    const attrs = res.body.data as string[];
    assert.ok(attrs.includes(`${tag}x`) && attrs.includes(`${tag}y`), JSON.stringify(attrs));
    assert.equal(new Set(attrs).size, attrs.length, 'no duplicates');
    assert.equal(typeof res.body.meta.pagination.totalCount, 'number');
    // An attribute nobody has any more disappears.
    assertStatus(await admin.patch(`/identities/${c}`, { roleAttributes: [] }), 200);
    assertStatus(await admin.patch(`/identities/${a}`, { roleAttributes: [`${tag}x`] }), 200);
    const again = await admin.get('/identity-role-attributes', { query: { limit: -1 } });
    assert.ok(!(again.body.data as string[]).includes(`${tag}y`), `${tag}y is no longer in use`);
  });
});

describe('disable and enable', () => {
  it('disable for N minutes: login fails, 401 INVALID_AUTH, and existing sessions end; enable restores', async () => {
    const user = await createUser(admin);
    const token = await ctl.api.login(user.username, user.password);
    const session = ctl.api.as(token);
    assertStatus(await session.get('/current-api-session'), 200);

    const at = Date.now();
    const res = await admin.post(`/identities/${user.id}/disable`, { durationMinutes: 30 });
    assertStatus(res, 200);
    assert.deepEqual(res.body, { data: {}, meta: {} });

    const got = await getIdentity(user.id);
    assert.equal(got.disabled, true);
    assert.ok(msFrom(got.disabledAt, at) < 120_000, `disabledAt ~ now: ${got.disabledAt}`);
    assert.ok(msFrom(got.disabledUntil, at + 30 * 60_000) < 120_000, `disabledUntil ~ now+30m: ${got.disabledUntil}`);

    assertError(
      await ctl.api.post(
        '/authenticate',
        { username: user.username, password: user.password },
        { query: { method: 'password' }, token: null },
      ),
      401,
      'INVALID_AUTH',
    );
    assertError(
      await ctl.api.post(
        '/authenticate',
        { username: user.username, password: user.password },
        { api: 'client', query: { method: 'password' }, token: null },
      ),
      401,
      'INVALID_AUTH',
    );
    assertError(await session.get('/current-api-session'), 401, 'UNAUTHORIZED');

    assertStatus(await admin.post(`/identities/${user.id}/enable`), 200);
    const enabled = await getIdentity(user.id);
    assert.equal(enabled.disabled, false);
    assert.equal(enabled.disabledAt ?? null, null);
    assert.equal(enabled.disabledUntil ?? null, null);
    await ctl.api.login(user.username, user.password);
  });

  it('durationMinutes 0 disables indefinitely (no disabledUntil)', async () => {
    const user = await createUser(admin);
    assertStatus(await admin.post(`/identities/${user.id}/disable`, { durationMinutes: 0 }), 200);
    const got = await getIdentity(user.id);
    assert.equal(got.disabled, true);
    assert.equal(typeof got.disabledAt, 'string');
    assert.equal(got.disabledUntil ?? null, null);
    assertError(
      await ctl.api.post(
        '/authenticate',
        { username: user.username, password: user.password },
        { query: { method: 'password' } },
      ),
      401,
      'INVALID_AUTH',
    );
    assertStatus(await admin.post(`/identities/${user.id}/enable`), 200);
    await ctl.api.login(user.username, user.password);
  });

  it('disable requires durationMinutes as an integer; unknown ids are 404', async () => {
    const user = await createUser(admin);
    assertError(await admin.post(`/identities/${user.id}/disable`, {}), 400, 'COULD_NOT_VALIDATE', 'durationMinutes');
    assertError(
      await admin.post(`/identities/${user.id}/disable`, { durationMinutes: 'ten' }),
      400,
      'COULD_NOT_VALIDATE',
      'durationMinutes',
    );
    assert.equal((await getIdentity(user.id)).disabled, false);
    assertError(await admin.post('/identities/no-such-id/disable', { durationMinutes: 5 }), 404, 'NOT_FOUND');
    assertError(await admin.post('/identities/no-such-id/enable'), 404, 'NOT_FOUND');
  });
});

describe('sub-lists', () => {
  it('/identities/{id}/authenticators lists the updb authenticator; the identity shows it; no secrets', async () => {
    const user = await createUser(admin);
    const res = await admin.get(`/identities/${user.id}/authenticators`);
    assertStatus(res, 200);
    assert.equal(res.body.data.length, 1);
    const auth = res.body.data[0];
    assert.equal(auth.id, user.authenticatorId);
    assert.equal(auth.method, 'updb');
    assert.equal(auth.username, user.username);
    assert.equal(auth.identityId, user.id);
    assert.equal(auth.identity.id, user.id);
    assert.ok(!res.text.includes(user.password), 'the password is never returned');
    assert.ok(!('password' in auth) && !('salt' in auth), 'no password or salt fields');

    const got = await getIdentity(user.id);
    assert.equal(got.authenticators?.updb?.id, user.authenticatorId);
    assert.equal(got.authenticators?.updb?.username, user.username);
  });

  it('sub-lists of an unknown identity are empty (OpenZiti filters them); its service configs 404', async () => {
    for (const list of ['authenticators', 'enrollments', 'services', 'edge-routers', 'service-policies']) {
      const res = await admin.get(`/identities/no-such-id/${list}`);
      assert.equal(res.status, 200, `${list}: ${res.text}`);
      assert.deepEqual(res.body.data, [], list);
    }
    assertError(await admin.get('/identities/no-such-id/service-configs'), 404, 'NOT_FOUND');
  });
});

describe('list', () => {
  it('lists identities with pagination and filterable fields', async () => {
    const res = await admin.get('/identities');
    assertStatus(res, 200);
    assert.ok(Array.isArray(res.body.data));
    const p = res.body.meta.pagination;
    assert.equal(p.limit, 10);
    assert.equal(p.offset, 0);
    assert.ok(p.totalCount >= res.body.data.length);
    assert.ok(Array.isArray(res.body.meta.filterableFields));
  });
});
