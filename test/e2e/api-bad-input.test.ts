// Bad input everywhere (architecture.md, "Tests"): for every endpoint of the identity story, malformed JSON,
// wrong types, missing and unknown fields, bad enums, oversize bodies, bad filters, unknown ids, missing, garbage
// and non-admin tokens. Each gets its documented 4xx envelope (the HTTP helper fails any 5xx and validates every
// body against the spec) and nothing is written. Plus: concurrent duplicate creates, tolerated slashes, and the
// 404 envelope of unknown routes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type HttpHelper,
  type HttpResponse,
  type TestController,
  assertError,
  assertStatus,
  createIdentity,
  createUser,
  randomPassword,
  startTestController,
  unique,
} from '../helpers/controller.js';
import type { ApiName } from '../helpers/spec.js';

let ctl: TestController;
let admin: HttpHelper;

interface Ctx {
  /** An identity that write tests target (never changed successfully). */
  identityId: string;
  identityName: string;
  /** A user with a updb authenticator and a client-API session. */
  user: Awaited<ReturnType<typeof createUser>>;
  userClient: HttpHelper;
  userMgmt: HttpHelper;
  /** An identity without authenticator, for authenticator creates. */
  bareIdentityId: string;
  apiSessionId: string;
  enrollmentId: string;
}

let c: Ctx;

before(async () => {
  ctl = await startTestController();
  admin = await ctl.admin();
  const identityName = unique('target');
  const identityId = await createIdentity(admin, {
    name: identityName,
    roleAttributes: ['a'],
    externalId: unique('ext'),
    tags: { k: 'v' },
    enrollment: { ott: true },
  });
  const user = await createUser(admin);
  const userClient = await ctl.api.on('client').loginAs(user.username, user.password);
  const userMgmt = await ctl.api.loginAs(user.username, user.password);
  const bareIdentityId = await createIdentity(admin, { name: unique('bare') });
  const session = await userClient.get('/current-api-session');
  assertStatus(session, 200);
  // (the enrollment id from the identity detail: setup touches as few endpoints as it can)
  const target = await admin.get(`/identities/${identityId}`);
  assertStatus(target, 200);
  c = {
    identityId,
    identityName,
    user,
    userClient,
    userMgmt,
    bareIdentityId,
    apiSessionId: session.body.data.id,
    enrollmentId: target.body.data.enrollment?.ott?.id ?? 'missing-enrollment',
  };
});

after(async () => {
  await ctl?.close();
});

// ---------------------------------------------------------------------------------------------------------------
// Write endpoints, table-driven

interface WriteCase {
  label: string;
  method: 'POST' | 'PUT' | 'PATCH';
  api: ApiName;
  path: () => string;
  query?: Record<string, string>;
  caller: () => HttpHelper;
  /** A body the endpoint would accept (never sent as-is: the variants below break it). */
  valid: () => Record<string, unknown>;
  required: string[];
  wrongTypes: Record<string, unknown[]>;
  badValues?: Record<string, unknown[]>;
  /** State that must not change when the request is refused. */
  snapshot: () => Promise<unknown>;
}

async function total(path: string): Promise<number> {
  const res = await admin.get(path, { query: { limit: 1 } });
  assertStatus(res, 200, `GET ${path}`);
  return res.body.meta.pagination.totalCount as number;
}

async function detail(path: string): Promise<unknown> {
  const res = await admin.get(path);
  assertStatus(res, 200, `GET ${path}`);
  return res.body.data;
}

/** Whether the user's password still works (the current-identity writes must not change it). */
async function userCanLogIn(): Promise<boolean> {
  const res = await ctl.api.post(
    '/authenticate',
    { username: c.user.username, password: c.user.password },
    { query: { method: 'password' }, token: null },
  );
  return res.status === 200;
}

const identityWrongTypes: Record<string, unknown[]> = {
  name: [123, true, {}, ['x']],
  type: [5, true],
  isAdmin: ['yes', 1, 'true'],
  roleAttributes: ['sales', [1], [null], { a: 1 }],
  externalId: [5, false],
  authPolicyId: [7, {}],
  appData: ['x', 5],
  defaultHostingCost: ['10', 1.5, true],
  defaultHostingPrecedence: [3, true],
  serviceHostingCosts: ['x', { s: 'x' }, { s: 1.5 }],
  serviceHostingPrecedences: ['x', { s: 3 }],
  tags: ['x', 5, ['a']],
};

const identityBadValues: Record<string, unknown[]> = {
  type: ['Robot', 'user', ''],
  defaultHostingPrecedence: ['sometimes', 'DEFAULT'],
  defaultHostingCost: [-1, 65536],
  serviceHostingCosts: [{ s: 65536 }, { s: -1 }],
  serviceHostingPrecedences: [{ s: 'always' }],
  roleAttributes: [['#hash'], ['@at']],
  name: [''],
};

const WRITES: WriteCase[] = [
  {
    label: 'POST /identities',
    method: 'POST',
    api: 'management',
    path: () => '/identities',
    caller: () => admin,
    valid: () => ({ name: unique('new'), type: 'User', isAdmin: false }),
    required: ['name', 'type', 'isAdmin'],
    wrongTypes: { ...identityWrongTypes, enrollment: ['ott', 5] },
    badValues: { ...identityBadValues, enrollment: [{ ott: 'yes' }, { updb: 5 }] },
    snapshot: () => total('/identities'),
  },
  {
    label: 'PUT /identities/{id}',
    method: 'PUT',
    api: 'management',
    path: () => `/identities/${c.identityId}`,
    caller: () => admin,
    valid: () => ({ name: c.identityName, type: 'User', isAdmin: false }),
    required: ['name', 'type', 'isAdmin'],
    wrongTypes: identityWrongTypes,
    badValues: { ...identityBadValues, enrollment: [{ ott: true }] },
    snapshot: () => detail(`/identities/${c.identityId}`),
  },
  {
    label: 'PATCH /identities/{id}',
    method: 'PATCH',
    api: 'management',
    path: () => `/identities/${c.identityId}`,
    caller: () => admin,
    valid: () => ({}),
    required: [],
    wrongTypes: identityWrongTypes,
    badValues: { ...identityBadValues, enrollment: [{ ott: true }] },
    snapshot: () => detail(`/identities/${c.identityId}`),
  },
  {
    label: 'POST /identities/{id}/disable',
    method: 'POST',
    api: 'management',
    path: () => `/identities/${c.identityId}/disable`,
    caller: () => admin,
    valid: () => ({ durationMinutes: 5 }),
    required: ['durationMinutes'],
    wrongTypes: { durationMinutes: ['5', 1.5, true, null] },
    snapshot: () => detail(`/identities/${c.identityId}`),
  },
  {
    label: 'POST /authenticators',
    method: 'POST',
    api: 'management',
    path: () => '/authenticators',
    caller: () => admin,
    valid: () => ({
      method: 'updb',
      identityId: c.bareIdentityId,
      username: unique('login'),
      password: randomPassword(),
    }),
    required: ['method', 'identityId'],
    wrongTypes: { method: [5], identityId: [5], username: [5], password: [5], tags: ['x'] },
    badValues: { method: ['bogus'], password: ['abc', 'x'.repeat(101)], username: ['abc', 'x'.repeat(101)] },
    snapshot: () => total('/authenticators'),
  },
  {
    label: 'PUT /authenticators/{id}',
    method: 'PUT',
    api: 'management',
    path: () => `/authenticators/${c.user.authenticatorId}`,
    caller: () => admin,
    valid: () => ({ username: c.user.username, password: randomPassword() }),
    required: ['username', 'password'],
    wrongTypes: { username: [5, true], password: [5, {}], tags: ['x'] },
    badValues: { password: ['abc'], username: ['abc'] },
    snapshot: async () => [await detail(`/authenticators/${c.user.authenticatorId}`), await userCanLogIn()],
  },
  {
    label: 'PATCH /authenticators/{id}',
    method: 'PATCH',
    api: 'management',
    path: () => `/authenticators/${c.user.authenticatorId}`,
    caller: () => admin,
    valid: () => ({}),
    required: [],
    wrongTypes: { username: [5, true], password: [5, {}], tags: ['x'] },
    badValues: { password: ['abc'], username: ['abc'] },
    snapshot: async () => [await detail(`/authenticators/${c.user.authenticatorId}`), await userCanLogIn()],
  },
  {
    label: 'PUT /current-identity/authenticators/{id} (client)',
    method: 'PUT',
    api: 'client',
    path: () => `/current-identity/authenticators/${c.user.authenticatorId}`,
    caller: () => c.userClient,
    valid: () => ({ username: c.user.username, password: randomPassword(), currentPassword: c.user.password }),
    required: ['username', 'password', 'currentPassword'],
    wrongTypes: { username: [5], password: [5], currentPassword: [5], tags: ['x'] },
    badValues: { password: ['abc'] },
    snapshot: async () => [await detail(`/authenticators/${c.user.authenticatorId}`), await userCanLogIn()],
  },
  {
    label: 'PATCH /current-identity/authenticators/{id} (management)',
    method: 'PATCH',
    api: 'management',
    path: () => `/current-identity/authenticators/${c.user.authenticatorId}`,
    caller: () => c.userMgmt,
    valid: () => ({ currentPassword: c.user.password }),
    required: ['currentPassword'],
    wrongTypes: { username: [5], password: [5], currentPassword: [5] },
    badValues: { password: ['abc'] },
    snapshot: async () => [await detail(`/authenticators/${c.user.authenticatorId}`), await userCanLogIn()],
  },
  {
    label: 'POST /authenticate?method=password',
    method: 'POST',
    api: 'management',
    path: () => '/authenticate',
    query: { method: 'password' },
    caller: () => ctl.api,
    valid: () => ({ username: c.user.username, password: c.user.password }),
    required: ['username', 'password'],
    wrongTypes: { username: [5], password: [5], envInfo: ['x'], sdkInfo: ['x'], configTypes: ['x', [5]] },
    badValues: { username: ['abc'], password: ['abc'] },
    snapshot: () => total('/api-sessions'),
  },
];

function send(w: WriteCase, opts: { json?: unknown; body?: string }): Promise<HttpResponse> {
  return w.caller().request(w.method, w.path(), { api: w.api, query: w.query, ...opts });
}

async function refusedAndUnchanged(
  w: WriteCase,
  send1: () => Promise<HttpResponse>,
  check: (res: HttpResponse) => void,
): Promise<void> {
  const before = await w.snapshot();
  const res = await send1();
  check(res);
  assert.deepEqual(await w.snapshot(), before, `${w.label}: a refused request changed nothing`);
}

for (const w of WRITES) {
  describe(`bad input: ${w.label}`, () => {
    it('malformed JSON -> 400 COULD_NOT_PARSE_BODY', async () => {
      for (const body of ['{"name": ', '{name: "x"}', '{"a":1}}', 'not json', '{"a": 1,}']) {
        await refusedAndUnchanged(
          w,
          () => send(w, { body }),
          (res) => assertError(res, 400, 'COULD_NOT_PARSE_BODY'),
        );
      }
    });

    it('a JSON document that is not an object -> 400', async () => {
      for (const body of ['[]', '"x"', '42', 'null']) {
        await refusedAndUnchanged(
          w,
          () => send(w, { body }),
          (res) => {
            assert.equal(res.status, 400, `${body}: ${res.text}`);
            assert.ok(['COULD_NOT_PARSE_BODY', 'COULD_NOT_VALIDATE'].includes(res.body.error.code), res.text);
          },
        );
      }
    });

    if (w.method !== 'PATCH') {
      it('an empty body -> 400', async () => {
        await refusedAndUnchanged(
          w,
          () => send(w, { body: '' }),
          (res) => {
            assert.equal(res.status, 400, res.text);
            assert.ok(['COULD_NOT_PARSE_BODY', 'COULD_NOT_VALIDATE'].includes(res.body.error.code), res.text);
          },
        );
      });
    }

    for (const field of w.required) {
      it(`missing ${field} -> 400 COULD_NOT_VALIDATE naming it`, async () => {
        const body = w.valid();
        delete body[field];
        await refusedAndUnchanged(
          w,
          () => send(w, { json: body }),
          (res) => assertError(res, 400, 'COULD_NOT_VALIDATE', field),
        );
      });
    }

    for (const [field, values] of Object.entries(w.wrongTypes)) {
      it(`wrong type for ${field} -> 400 COULD_NOT_VALIDATE with a cause`, async () => {
        for (const value of values) {
          await refusedAndUnchanged(
            w,
            () => send(w, { json: { ...w.valid(), [field]: value } }),
            (res) => {
              const err = assertError(res, 400, 'COULD_NOT_VALIDATE');
              assert.ok(
                String(err.cause?.field ?? '').startsWith(field),
                `${field}=${JSON.stringify(value)}: cause names ${field}: ${res.text}`,
              );
            },
          );
        }
      });
    }

    for (const [field, values] of Object.entries(w.badValues ?? {})) {
      it(`bad value for ${field} -> 400 COULD_NOT_VALIDATE with a cause`, async () => {
        for (const value of values) {
          await refusedAndUnchanged(
            w,
            () => send(w, { json: { ...w.valid(), [field]: value } }),
            (res) => {
              const err = assertError(res, 400, 'COULD_NOT_VALIDATE');
              assert.ok(
                String(err.cause?.field ?? '').startsWith(field),
                `${field}=${JSON.stringify(value)}: cause names ${field}: ${res.text}`,
              );
            },
          );
        }
      });
    }

    it('an unknown field -> 400 COULD_NOT_VALIDATE naming it', async () => {
      await refusedAndUnchanged(
        w,
        () => send(w, { json: { ...w.valid(), bogusField: 1 } }),
        (res) => assertError(res, 400, 'COULD_NOT_VALIDATE', 'bogusField'),
      );
    });

    it('a body over 1 MiB -> 413 REQUEST_ENTITY_TOO_LARGE', async () => {
      const body = JSON.stringify({ ...w.valid(), tags: { big: 'x'.repeat(1024 * 1024 + 10) } });
      await refusedAndUnchanged(
        w,
        () => send(w, { body }),
        (res) => assertError(res, 413, 'REQUEST_ENTITY_TOO_LARGE'),
      );
    });
  });
}

describe('bad input: values that only some endpoints check', () => {
  it('POST /authenticators for an unknown identity, or updb without username or password, is refused', async () => {
    const before = await total('/authenticators');
    const unknownIdentity = await admin.post('/authenticators', {
      method: 'updb',
      identityId: 'no-such-id',
      username: unique('u'),
      password: randomPassword(),
    });
    assert.ok([400, 404].includes(unknownIdentity.status), unknownIdentity.text);
    assertError(
      await admin.post('/authenticators', { method: 'updb', identityId: c.bareIdentityId, password: randomPassword() }),
      400,
      'COULD_NOT_VALIDATE',
      'username',
    );
    assertError(
      await admin.post('/authenticators', { method: 'updb', identityId: c.bareIdentityId, username: unique('u') }),
      400,
      'COULD_NOT_VALIDATE',
      'password',
    );
    assert.equal(await total('/authenticators'), before);
  });

  it('a duplicate updb username is refused', async () => {
    const before = await total('/authenticators');
    assertError(
      await admin.post('/authenticators', {
        method: 'updb',
        identityId: c.bareIdentityId,
        username: c.user.username,
        password: randomPassword(),
      }),
      400,
      'COULD_NOT_VALIDATE',
      'username',
    );
    assert.equal(await total('/authenticators'), before);
  });

  it('POST /authenticate with a wrong content type is refused without a session', async () => {
    const before = await total('/api-sessions');
    const res = await ctl.api.post('/authenticate', undefined, {
      query: { method: 'password' },
      body: `username=${c.user.username}&password=${c.user.password}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.ok(res.status >= 400 && res.status < 500, res.text);
    assert.equal(await total('/api-sessions'), before);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Unknown ids, filters, tokens

interface Endpoint {
  method: string;
  api: ApiName;
  path: string;
  body?: () => Record<string, unknown>;
  /** Reachable by a non-admin (own session and identity). */
  self?: boolean;
}

/** Every endpoint of the identity story, with an unknown id where the path takes one. */
function endpoints(id: string, authId: string, sessionId: string, enrollmentId: string): Endpoint[] {
  const identityBody = () => ({ name: unique('x'), type: 'User', isAdmin: false });
  return [
    { method: 'GET', api: 'management', path: '/identities' },
    { method: 'POST', api: 'management', path: '/identities', body: identityBody },
    { method: 'GET', api: 'management', path: `/identities/${id}` },
    { method: 'PUT', api: 'management', path: `/identities/${id}`, body: identityBody },
    { method: 'PATCH', api: 'management', path: `/identities/${id}`, body: () => ({ tags: { x: 'y' } }) },
    { method: 'DELETE', api: 'management', path: `/identities/${id}` },
    { method: 'POST', api: 'management', path: `/identities/${id}/disable`, body: () => ({ durationMinutes: 1 }) },
    { method: 'POST', api: 'management', path: `/identities/${id}/enable` },
    { method: 'GET', api: 'management', path: `/identities/${id}/authenticators` },
    { method: 'GET', api: 'management', path: `/identities/${id}/enrollments` },
    { method: 'GET', api: 'management', path: '/identity-role-attributes' },
    { method: 'GET', api: 'management', path: '/identity-types' },
    { method: 'GET', api: 'management', path: '/authenticators' },
    {
      method: 'POST',
      api: 'management',
      path: '/authenticators',
      body: () => ({ method: 'updb', identityId: c.bareIdentityId, username: unique('u'), password: randomPassword() }),
    },
    { method: 'GET', api: 'management', path: `/authenticators/${authId}` },
    {
      method: 'PUT',
      api: 'management',
      path: `/authenticators/${authId}`,
      body: () => ({ username: unique('u'), password: randomPassword() }),
    },
    {
      method: 'PATCH',
      api: 'management',
      path: `/authenticators/${authId}`,
      body: () => ({ password: randomPassword() }),
    },
    { method: 'DELETE', api: 'management', path: `/authenticators/${authId}` },
    { method: 'GET', api: 'management', path: '/api-sessions' },
    { method: 'GET', api: 'management', path: `/api-sessions/${sessionId}` },
    { method: 'DELETE', api: 'management', path: `/api-sessions/${sessionId}` },
    { method: 'GET', api: 'management', path: '/enrollments' },
    { method: 'GET', api: 'management', path: `/enrollments/${enrollmentId}` },
    { method: 'DELETE', api: 'management', path: `/enrollments/${enrollmentId}` },
    { method: 'GET', api: 'management', path: '/summary' },
    ...(['management', 'client'] as const).flatMap((api): Endpoint[] => [
      { method: 'GET', api, path: '/current-api-session', self: true },
      { method: 'GET', api, path: '/current-identity', self: true },
      { method: 'GET', api, path: '/current-identity/authenticators', self: true },
      { method: 'GET', api, path: `/current-identity/authenticators/${authId}`, self: true },
      {
        method: 'PUT',
        api,
        path: `/current-identity/authenticators/${authId}`,
        self: true,
        body: () => ({ username: c.user.username, password: randomPassword(), currentPassword: c.user.password }),
      },
      {
        method: 'PATCH',
        api,
        path: `/current-identity/authenticators/${authId}`,
        self: true,
        body: () => ({ password: randomPassword(), currentPassword: c.user.password }),
      },
    ]),
  ];
}

describe('unknown ids', () => {
  it('every {id} endpoint answers 404 NOT_FOUND for an unknown id (a sub-list: nothing); writes nothing', async () => {
    const identitiesBefore = await total('/identities');
    const authenticatorsBefore = await total('/authenticators');
    const failures: string[] = [];
    for (const e of endpoints('no-such-id', 'no-such-id', 'no-such-id', 'no-such-id')) {
      if (!e.path.includes('no-such-id')) continue;
      const caller = e.self ? (e.api === 'client' ? c.userClient : c.userMgmt) : admin;
      const res = await caller.request(e.method, e.path, { api: e.api, ...(e.body ? { json: e.body() } : {}) });
      // OpenZiti answers an identity's authenticators and enrollments by a filter, without reading the identity.
      const subList = e.method === 'GET' && /\/identities\/no-such-id\/(authenticators|enrollments)$/.test(e.path);
      const notFound = res.status === 404 && res.body?.error?.code === 'NOT_FOUND';
      const answered = subList ? res.status === 200 && res.body?.data?.length === 0 : notFound;
      if (!answered) failures.push(`${e.method} ${e.api} ${e.path}: ${res.status} ${res.text.slice(0, 200)}`);
    }
    assert.deepEqual(failures, []);
    assert.equal(await total('/identities'), identitiesBefore);
    assert.equal(await total('/authenticators'), authenticatorsBefore);
    assert.ok(await userCanLogIn());
  });

  it('an id no entity could have (NUL, a control character, far too long) is 404 on every {id} endpoint', async () => {
    const failures: string[] = [];
    for (const id of ['%00', 'x%1By', 'i'.repeat(300)]) {
      for (const e of endpoints(id, id, id, id)) {
        if (!e.path.includes(id)) continue;
        const caller = e.self ? (e.api === 'client' ? c.userClient : c.userMgmt) : admin;
        const res = await caller.request(e.method, e.path, { api: e.api, ...(e.body ? { json: e.body() } : {}) });
        if (res.status !== 404) failures.push(`${e.method} ${e.api} ${e.path.slice(0, 60)}: ${res.status} ${res.text}`);
      }
    }
    assert.deepEqual(failures, []);
    assert.ok(await userCanLogIn());
  });

  it('ids that look like injection or path tricks are just unknown ids', async () => {
    for (const id of ["x' OR '1'='1", '%2e%2e', '..%2Fidentities', 'x"; DROP TABLE identities; --']) {
      const res = await admin.get(`/identities/${encodeURIComponent(id)}`);
      assertError(res, 404, 'NOT_FOUND');
    }
    assert.ok((await total('/identities')) > 0);
  });
});

describe('bad filters', () => {
  const lists = [
    '/identities',
    '/authenticators',
    '/api-sessions',
    '/identity-role-attributes',
    '/enrollments',
    '/identity-types',
  ];
  for (const list of lists) {
    it(`GET ${list} with a bad filter -> 400 INVALID_FILTER`, async () => {
      for (const filter of ['name = ', 'nosuchfield = "x"', '(((', 'name = "x" andd true', 'limit -']) {
        assertError(await admin.get(list, { query: { filter } }), 400, 'INVALID_FILTER');
      }
    });
    it(`GET ${list} with bad paging -> 400 INVALID_PAGINATION`, async () => {
      assertError(await admin.get(list, { query: { limit: 'ten' } }), 400, 'INVALID_PAGINATION');
      assertError(await admin.get(list, { query: { offset: '1x' } }), 400, 'INVALID_PAGINATION');
    });
  }
});

describe('tokens', () => {
  it('no token and a garbage token -> 401 UNAUTHORIZED on every endpoint, nothing written', async () => {
    const identitiesBefore = await total('/identities');
    const authenticatorsBefore = await total('/authenticators');
    const failures: string[] = [];
    for (const token of [null, 'garbage', 'eyJhbGciOiJIUzI1NiJ9.e30.x', '00000000-0000-4000-8000-000000000000']) {
      for (const e of endpoints(c.identityId, c.user.authenticatorId, c.apiSessionId, c.enrollmentId)) {
        const res = await ctl.api
          .as(token)
          .request(e.method, e.path, { api: e.api, ...(e.body ? { json: e.body() } : {}) });
        if (res.status !== 401 || res.body?.error?.code !== 'UNAUTHORIZED')
          failures.push(`[token ${token}] ${e.method} ${e.api} ${e.path}: ${res.status} ${res.text.slice(0, 160)}`);
        else if (!res.headers['www-authenticate'])
          failures.push(`[token ${token}] ${e.method} ${e.api} ${e.path}: 401 without WWW-Authenticate`);
      }
    }
    assert.deepEqual(failures, []);
    assert.equal(await total('/identities'), identitiesBefore);
    assert.equal(await total('/authenticators'), authenticatorsBefore);
    assert.ok(await userCanLogIn());
    assertStatus(await c.userClient.get('/current-api-session'), 200, 'the user session survived');
  });

  it('a non-admin token -> 401 UNAUTHORIZED on every management endpoint, nothing written', async () => {
    const identitiesBefore = await total('/identities');
    const target = await detail(`/identities/${c.identityId}`);
    const failures: string[] = [];
    for (const e of endpoints(c.identityId, c.user.authenticatorId, c.apiSessionId, c.enrollmentId)) {
      if (e.self || e.api !== 'management') continue;
      const res = await c.userMgmt.request(e.method, e.path, { api: e.api, ...(e.body ? { json: e.body() } : {}) });
      if (res.status !== 401 || res.body?.error?.code !== 'UNAUTHORIZED')
        failures.push(`${e.method} ${e.path}: ${res.status} ${res.text.slice(0, 160)}`);
    }
    assert.deepEqual(failures, []);
    assert.equal(await total('/identities'), identitiesBefore);
    assert.deepEqual(await detail(`/identities/${c.identityId}`), target);
    assert.ok(await userCanLogIn());
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Concurrency, paths, routes

describe('concurrent creates', () => {
  it('twenty concurrent creates of one name: exactly one 201, nineteen 400 COULD_NOT_VALIDATE (name)', async () => {
    const name = unique('race');
    const results = await Promise.all(
      Array.from({ length: 20 }, () => admin.post('/identities', { name, type: 'User', isAdmin: false })),
    );
    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 400);
    assert.equal(created.length, 1, results.map((r) => `${r.status}`).join(','));
    assert.equal(refused.length, 19);
    for (const r of refused) assertError(r, 400, 'COULD_NOT_VALIDATE', 'name');
    const list = await admin.get('/identities', { query: { filter: `name = "${name}"` } });
    assert.equal(list.body.meta.pagination.totalCount, 1);
    assert.equal(list.body.data[0].id, created[0]!.body.data.id);
  });

  it('twenty concurrent creates of different names all succeed', async () => {
    const prefix = unique('par');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_v, i) =>
        admin.post('/identities', { name: `${prefix}-${i}`, type: 'User', isAdmin: false }),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.status),
      Array(20).fill(201),
    );
    const list = await admin.get('/identities', { query: { filter: `name contains "${prefix}-"`, limit: -1 } });
    assert.equal(list.body.meta.pagination.totalCount, 20);
  });
});

describe('paths and routes', () => {
  it('duplicate and trailing slashes are tolerated', async () => {
    for (const p of [
      '//identities/',
      '/identities/',
      '//identities',
      `/identities/${c.identityId}/`,
      `//identities//${c.identityId}`,
    ]) {
      const res = await admin.get(p);
      assertStatus(res, 200, p);
    }
    const list = await admin.get('//identities//', { query: { limit: 1 } });
    assertStatus(list, 200);
    assert.equal(typeof list.body.meta.pagination.totalCount, 'number');
  });

  it('unknown routes -> 404 NOT_FOUND envelope on both APIs and at the root', async () => {
    for (const [api, p, method] of [
      ['management', '/no-such-route', 'GET'],
      ['management', `/identities/${c.identityId}/no-such-relation`, 'GET'],
      ['management', '/no-such-route', 'POST'],
      ['client', '/no-such-route', 'GET'],
      ['client', '/identities', 'GET'],
      ['root', '/no-such-route', 'GET'],
      ['root', '/edge/management/v2/identities', 'GET'],
    ] as const) {
      const res = await admin.request(method, p, { api, unlisted: true, ...(method === 'POST' ? { json: {} } : {}) });
      assertError(res, 404, 'NOT_FOUND');
    }
  });

  it('an unsupported method on a known route is refused with a 4xx envelope', async () => {
    const res = await admin.request('PATCH', '/identities', { unlisted: true, json: {} });
    assert.ok([404, 405].includes(res.status), res.text);
    assert.ok(['NOT_FOUND', 'METHOD_NOT_ALLOWED'].includes(res.body.error.code), res.text);
  });
});
