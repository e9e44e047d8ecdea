// Everything a client can make the controller store is bounded, and strings carry no control characters
// (docs/security.md, "Limits"): each bound is accepted at its limit and refused with 400 just beyond it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FIELD_LIMITS } from '../../src/controller/server/limits.js';
import {
  type HttpHelper,
  type TestController,
  assertError,
  assertStatus,
  createUser,
  randomPassword,
  startTestController,
  unique,
} from '../helpers/controller.js';

let ctl: TestController;
let admin: HttpHelper;

before(async () => {
  ctl = await startTestController();
  admin = await ctl.admin();
});
after(() => ctl?.close());

const L = FIELD_LIMITS;
const keys = (n: number, value: (i: number) => unknown = () => 'v') =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value(i)]));
const identity = (extra: Record<string, unknown>) => ({
  name: unique('bounded'),
  type: 'User',
  isAdmin: false,
  ...extra,
});

describe('login body', () => {
  const login = (extra: Record<string, unknown>) =>
    ctl.api.post(
      '/authenticate',
      { username: ctl.adminUser, password: ctl.adminPassword, ...extra },
      { query: { method: 'password' }, api: 'client', token: null },
    );

  it(`configTypes: at most ${L.configTypesMaxItems} of at most ${L.configTypeMaxLength} characters`, async () => {
    assertStatus(
      await login({
        configTypes: Array.from({ length: L.configTypesMaxItems }, (_, i) =>
          `${'c'.repeat(L.configTypeMaxLength - 4)}${i}`.padEnd(L.configTypeMaxLength, 'x'),
        ),
      }),
      200,
    );
    assertError(
      await login({ configTypes: Array.from({ length: L.configTypesMaxItems + 1 }, (_, i) => `c${i}`) }),
      400,
      'COULD_NOT_VALIDATE',
      'configTypes',
    );
    assertError(
      await login({ configTypes: ['c'.repeat(L.configTypeMaxLength + 1)] }),
      400,
      'COULD_NOT_VALIDATE',
      'configTypes.0',
    );
  });

  for (const field of ['envInfo', 'sdkInfo']) {
    it(`${field}: at most ${L.infoMaxKeys} keys, values of at most ${L.infoValueMaxLength} characters`, async () => {
      assertStatus(await login({ [field]: keys(L.infoMaxKeys, () => 'v'.repeat(L.infoValueMaxLength)) }), 200);
      assertError(await login({ [field]: keys(L.infoMaxKeys + 1) }), 400, 'COULD_NOT_VALIDATE', field);
      assertError(
        await login({ [field]: { os: 'v'.repeat(L.infoValueMaxLength + 1) } }),
        400,
        'COULD_NOT_VALIDATE',
        `${field}.os`,
      );
      assertError(
        await login({ [field]: { ['k'.repeat(L.keyMaxLength + 1)]: 'v' } }),
        400,
        'COULD_NOT_VALIDATE',
        field,
      );
    });
  }
});

describe('entity fields', () => {
  it(`tags: at most ${L.tagsMaxKeys} keys of ${L.keyMaxLength} chars, values of ${L.tagValueMaxLength}`, async () => {
    assertStatus(
      await admin.post('/identities', identity({ tags: keys(L.tagsMaxKeys, () => 'v'.repeat(L.tagValueMaxLength)) })),
      201,
    );
    assertError(
      await admin.post('/identities', identity({ tags: keys(L.tagsMaxKeys + 1) })),
      400,
      'COULD_NOT_VALIDATE',
      'tags',
    );
    assertError(
      await admin.post('/identities', identity({ tags: { a: 'v'.repeat(L.tagValueMaxLength + 1) } })),
      400,
      'COULD_NOT_VALIDATE',
      'tags.a',
    );
    assertError(
      await admin.post('/identities', identity({ tags: { ['k'.repeat(L.keyMaxLength + 1)]: 1 } })),
      400,
      'COULD_NOT_VALIDATE',
      'tags',
    );
    assertStatus(await admin.post('/identities', identity({ tags: { n: 1, b: true, z: null } })), 201);
  });

  it(`roleAttributes: at most ${L.attributesMaxItems}`, async () => {
    const attrs = (n: number) => Array.from({ length: n }, (_, i) => `a${i}`);
    assertStatus(await admin.post('/identities', identity({ roleAttributes: attrs(L.attributesMaxItems) })), 201);
    assertError(
      await admin.post('/identities', identity({ roleAttributes: attrs(L.attributesMaxItems + 1) })),
      400,
      'COULD_NOT_VALIDATE',
      'roleAttributes',
    );
  });

  it(`appData: at most ${L.objectMaxBytes} bytes as JSON, nested at most ${L.bodyMaxDepth} levels`, async () => {
    const sized = (bytes: number) => ({ d: 'x'.repeat(bytes - '{"d":""}'.length) });
    assertStatus(await admin.post('/identities', identity({ appData: { ...sized(L.objectMaxBytes) } })), 201);
    assertError(
      await admin.post('/identities', identity({ appData: sized(L.objectMaxBytes + 1) })),
      400,
      'COULD_NOT_VALIDATE',
      'appData',
    );
    let deep: unknown = 1;
    for (let i = 0; i < L.bodyMaxDepth + 2; i++) deep = { d: deep };
    const res = await admin.post('/identities', identity({ appData: deep }));
    assertError(res, 400, 'COULD_NOT_VALIDATE');
    assert.match(res.body.error.cause.reason, /nested more than 32 levels/);
    // Line breaks are text in free-form data.
    assertStatus(await admin.post('/identities', identity({ appData: { note: 'line 1\nline 2\ttabbed' } })), 201);
  });

  it(`strings with no declared maximum: at most ${L.stringMaxLength} chars; refs ${L.refMaxLength}`, async () => {
    // authPolicyId is a reference: an id far longer than any id is refused before it is looked up.
    const error = assertError(
      await admin.post('/identities', identity({ authPolicyId: 'p'.repeat(L.refMaxLength + 1) })),
      400,
      'COULD_NOT_VALIDATE',
      'authPolicyId',
    );
    assert.match(error.cause.reason, new RegExp(`more than ${L.refMaxLength} characters`));
  });
});

describe('names and strings without control characters or invalid UTF-8', () => {
  for (const [what, name] of [
    ['NUL', 'evil\u0000name'],
    ['ESC (terminal escape)', 'evil\u001b[2Jname'],
    ['a line feed', 'two\nlines'],
    ['DEL', 'evil\u007f'],
    ['a C1 control (CSI)', 'evil\u009bname'],
    ['an unpaired surrogate', 'evil\ud800name'],
  ] as const) {
    it(`refuses ${what} in a name, and does not echo it`, async () => {
      const res = await admin.post('/identities', identity({ name }));
      const error = assertError(res, 400, 'COULD_NOT_VALIDATE', 'name');
      assert.doesNotMatch(res.text, /[\u0000-\u001f\u007f-\u009f]/, 'the answer carries no raw control character');
      // Parsed, the echoed value shows the character escaped (as text), never the character itself.
      assert.doesNotMatch(String(error.cause.value), /[\u0000-\u001f\u007f-\u009f]|\p{Cs}/u);
      assert.match(String(error.cause.value), /^evil|^two/);
    });
  }

  it('refuses control characters in tags (keys and values), attributes, usernames and login fields', async () => {
    assertError(
      await admin.post('/identities', identity({ tags: { k: 'a\u001bb' } })),
      400,
      'COULD_NOT_VALIDATE',
      'tags.k',
    );
    assertError(
      await admin.post('/identities', identity({ tags: { 'a\u0007': 'b' } })),
      400,
      'COULD_NOT_VALIDATE',
      'tags.a\u0007',
    );
    assertError(
      await admin.post('/identities', identity({ roleAttributes: ['ok', 'bad\u0000'] })),
      400,
      'COULD_NOT_VALIDATE',
      'roleAttributes.1',
    );
    const bare = await admin.post('/identities', identity({}));
    const res = await admin.post('/authenticators', {
      method: 'updb',
      identityId: bare.body.data.id,
      username: 'user\u001b]0;x\u0007',
      password: randomPassword(),
    });
    assertError(res, 400, 'COULD_NOT_VALIDATE', 'username');
    const login = await ctl.api.post(
      '/authenticate',
      { username: ctl.adminUser, password: ctl.adminPassword, envInfo: { os: '\u001b[31mred' } },
      { query: { method: 'password' }, token: null },
    );
    assertError(login, 400, 'COULD_NOT_VALIDATE', 'envInfo.os');
  });

  it('refuses a body that is not valid UTF-8', async () => {
    const name = Buffer.concat([
      Buffer.from(`{"name":"bad-`),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from(`","type":"User","isAdmin":false}`),
    ]);
    const res = await admin.post('/identities', undefined, { body: name });
    assertError(res, 400, 'COULD_NOT_PARSE_BODY');
    assert.match(res.body.error.message, /UTF-8/);
  });

  it('accepts ordinary non-ASCII names', async () => {
    assertStatus(await admin.post('/identities', identity({ name: unique('Zoë-東京-😀') })), 201);
  });
});

describe('usernames cannot be enumerated by renaming oneself', () => {
  it('gives the same answer for a taken and a free username, and changes nothing', async () => {
    const me = await createUser(admin);
    const other = await createUser(admin);
    const session = await ctl.api.on('client').loginAs(me.username, me.password);
    const rename = (username: string) =>
      session.patch(`/current-identity/authenticators/${me.authenticatorId}`, {
        currentPassword: me.password,
        username,
      });
    const taken = await rename(other.username);
    const free = await rename(unique('free-name'));
    assertError(taken, 400, 'COULD_NOT_VALIDATE', 'username');
    assert.deepEqual({ ...taken.body.error, requestId: '' }, { ...free.body.error, requestId: '' });
    await ctl.api.login(me.username, me.password);
    // Keeping one's username (PUT requires it) still works.
    const put = await session.put(`/current-identity/authenticators/${me.authenticatorId}`, {
      currentPassword: me.password,
      username: me.username,
      password: randomPassword(),
    });
    assertStatus(put, 200);
  });
});

describe('filters', () => {
  it('refuses a filter of more than 256 conditions with INVALID_FILTER naming the limit', async () => {
    const filter = Array.from({ length: 257 }, () => 'isAdmin=true').join(' or ');
    const res = await admin.get('/identities', { query: { filter } });
    const error = assertError(res, 400, 'INVALID_FILTER');
    assert.match(error.cause.message, /at most 256/);
  });
});

describe('numbers: what a 64-bit integer column holds, and nothing JSON cannot write back', () => {
  const raw = (json: string) => ({ body: json });
  const tooBig = ['1e308', '1e309', '123456789012345678901234567890', '9223372036854775807', '-1e309'];

  it('maxIdleTimeMillis and timeoutSeconds beyond the range are refused naming the field', async () => {
    for (const value of tooBig) {
      const name = unique('big-service');
      const serviceBody = `{"name":"${name}","encryptionRequired":true,"maxIdleTimeMillis":${value}}`;
      const service = await admin.post('/services', undefined, raw(serviceBody));
      assertError(service, 400, 'COULD_NOT_VALIDATE', 'maxIdleTimeMillis');
      const listed = await admin.get('/services', { query: { filter: `name = "${name}"` } });
      assert.equal(listed.body.meta.pagination.totalCount, 0, value);
      const checkBody = `{"name":"${unique('mfa')}","typeId":"MFA","timeoutSeconds":${value}}`;
      const check = await admin.post('/posture-checks', undefined, raw(checkBody));
      assertError(check, 400, 'COULD_NOT_VALIDATE', 'timeoutSeconds');
    }
    const largest = { name: unique('big'), encryptionRequired: true, maxIdleTimeMillis: 9_000_000_000_000_000_000 };
    assertStatus(await admin.post('/services', largest), 201);
  });

  it('a number JSON reads as Infinity is refused anywhere, free-form data and tags included', async () => {
    const post = (extra: string) =>
      admin.post('/identities', undefined, raw(`{"name":"${unique('inf')}","type":"User",${extra}}`));
    assertError(await post('"isAdmin":false,"appData":{"n":1e999}'), 400, 'COULD_NOT_VALIDATE', 'appData.n');
    assertError(await post('"isAdmin":false,"tags":{"n":-1e400}'), 400, 'COULD_NOT_VALIDATE', 'tags.n');
  });

  it('a filter comparing an integer field with a fraction or a number out of range names the field', async () => {
    const cases: Array<[string, string, string]> = [
      ['/services', 'maxIdleTimeMillis = 1.5', 'maxIdleTimeMillis'],
      ['/services', 'maxIdleTimeMillis < 1e999', 'maxIdleTimeMillis'],
      ['/edge-routers', 'cost > 1e19', 'cost'],
      ['/transit-routers', 'cost = 0.5', 'cost'],
      ['/terminators', 'cost in [1, 1.5]', 'cost'],
    ];
    for (const [list, filter, field] of cases) {
      const error = assertError(await admin.get(list, { query: { filter } }), 400, 'INVALID_FILTER');
      assert.match(error.cause.message, new RegExp(`^${field}\\b`), `${list} ${filter}`);
    }
    assertStatus(await admin.get('/services', { query: { filter: 'maxIdleTimeMillis < 9e18' } }), 200);
  });
});
