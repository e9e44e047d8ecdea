// ZitiQL through the API (wire-protocol section 3) on /identities: operators, set functions, tags, sorting, skip and
// limit inside the filter, the paging rules of the query parameters, meta.filterableFields, and INVALID_FILTER
// errors that say where the filter went wrong. Every response is validated against the spec by the HTTP helper.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type HttpHelper,
  type TestController,
  assertError,
  assertStatus,
  createIdentity,
  startTestController,
  unique,
} from '../helpers/controller.js';

let ctl: TestController;
let admin: HttpHelper;

/** A prefix shared by this file's identities, so every filter can be scoped to them. */
const P = unique('zq').replace('-', '');

interface Fixture {
  id: string;
  name: string;
  createdAt: string;
  roleAttributes: string[];
  isAdmin: boolean;
  externalId: string | null;
  tags: Record<string, string | boolean | null>;
}

const fixtures: Fixture[] = [];

before(async () => {
  ctl = await startTestController();
  admin = await ctl.admin();
  // 12 identities: P-00 .. P-11, created one after another so createdAt is non-decreasing.
  for (let i = 0; i < 12; i++) {
    const name = `${P}-${String(i).padStart(2, '0')}`;
    const roleAttributes = [
      i % 2 === 0 ? 'even' : 'odd',
      ...(i % 3 === 0 ? ['three'] : []),
      ...(i < 4 ? ['grp-low'] : ['grp-high']),
    ];
    if (i === 11) roleAttributes.length = 0;
    const body = {
      name,
      isAdmin: i === 5,
      roleAttributes,
      externalId: i < 6 ? `${P}-ext-${i}` : null,
      tags: { color: i % 2 === 0 ? 'red' : 'blue', vip: i === 7, 'my-key': i === 3 ? 'v' : 'w' },
    };
    const id = await createIdentity(admin, body);
    const got = await admin.get(`/identities/${id}`);
    assertStatus(got, 200);
    fixtures.push({
      id,
      name,
      createdAt: got.body.data.createdAt,
      roleAttributes,
      isAdmin: body.isAdmin,
      externalId: body.externalId,
      tags: body.tags,
    });
  }
});

after(async () => {
  await ctl?.close();
});

async function names(filter: string, query: Record<string, string | number> = {}): Promise<string[]> {
  const res = await admin.get('/identities', { query: { limit: -1, ...query, filter } });
  assertStatus(res, 200, `filter ${filter}`);
  return (res.body.data as Array<{ name: string }>).map((i) => i.name);
}

/** Names matching a filter scoped to this file's fixtures, sorted. */
async function scoped(expr: string): Promise<string[]> {
  return (await names(`(${expr}) and name contains "${P}-"`)).sort();
}

function expect(pred: (f: Fixture, i: number) => boolean): string[] {
  return fixtures
    .filter(pred)
    .map((f) => f.name)
    .sort();
}

const n = (i: number) => `${P}-${String(i).padStart(2, '0')}`;

describe('ZitiQL operators', () => {
  it('= and !=', async () => {
    assert.deepEqual(await scoped(`name = "${n(3)}"`), [n(3)]);
    assert.deepEqual(
      await scoped(`name != "${n(3)}"`),
      expect((_f, i) => i !== 3),
    );
    assert.deepEqual(await scoped(`id = "${fixtures[4]!.id}"`), [n(4)]);
    assert.deepEqual(await scoped('isAdmin = true'), [n(5)]);
    assert.deepEqual(await scoped('isAdmin'), [n(5)], 'a bare bool symbol');
  });

  it('contains, icontains and their negations', async () => {
    assert.deepEqual(
      await names(`name contains "${P}-0"`).then((a) => a.sort()),
      expect((_f, i) => i < 10),
    );
    assert.deepEqual(
      (await names(`name icontains "${P.toUpperCase()}-0"`)).sort(),
      expect((_f, i) => i < 10),
    );
    assert.deepEqual(await names(`name contains "${P.toUpperCase()}-0"`), [], 'contains is case-sensitive');
    assert.deepEqual(
      await scoped(`name not contains "${P}-0"`),
      expect((_f, i) => i >= 10),
    );
    assert.deepEqual(
      await scoped(`name not icontains "${P.toUpperCase()}-1"`),
      expect((_f, i) => i < 10),
    );
  });

  it('contains takes %, _ and \\ literally (PostgreSQL tests it with LIKE, which a trigram index serves)', async () => {
    const names = [`${P}w-100%`, `${P}w-1000`, `${P}w-a_b`, `${P}w-axb`, `${P}w-c\\d`];
    for (const name of names) await createIdentity(admin, { name });
    const found = async (needle: string) => {
      const filter = `name contains ${JSON.stringify(needle)}`;
      const res = await admin.get('/identities', { query: { limit: -1, filter } });
      assertStatus(res, 200, needle);
      return (res.body.data as Array<{ name: string }>).map((i) => i.name).sort();
    };
    assert.deepEqual(await found(`${P}w-100%`), [`${P}w-100%`]);
    assert.deepEqual(await found('w-a_b'), [`${P}w-a_b`]);
    assert.deepEqual(await found('w-c\\d'), [`${P}w-c\\d`]);
    assert.deepEqual(await found(`${P}w-1`), [`${P}w-100%`, `${P}w-1000`]);
  });

  it('in and not in', async () => {
    assert.deepEqual(await scoped(`name in ["${n(1)}", "${n(2)}", "nope"]`), [n(1), n(2)]);
    assert.deepEqual(
      await scoped(`name not in ["${n(1)}", "${n(2)}"]`),
      expect((_f, i) => i !== 1 && i !== 2),
    );
    assert.deepEqual(await scoped(`id in ["${fixtures[0]!.id}"]`), [n(0)]);
  });

  it('datetime comparisons and between (half-open: lower <= x < upper)', async () => {
    const c3 = fixtures[3]!.createdAt;
    const c7 = fixtures[7]!.createdAt;
    const t = (s: string) => Date.parse(s);
    assert.deepEqual(
      await scoped(`createdAt >= datetime(${c3})`),
      expect((f) => t(f.createdAt) >= t(c3)),
    );
    assert.deepEqual(
      await scoped(`createdAt < datetime(${c3})`),
      expect((f) => t(f.createdAt) < t(c3)),
    );
    assert.deepEqual(
      await scoped(`createdAt between datetime(${c3}) and datetime(${c7})`),
      expect((f) => t(f.createdAt) >= t(c3) && t(f.createdAt) < t(c7)),
    );
    assert.deepEqual(
      await scoped(`createdAt not between datetime(${c3}) and datetime(${c7})`),
      expect((f) => !(t(f.createdAt) >= t(c3) && t(f.createdAt) < t(c7))),
    );
    assert.deepEqual(await scoped('createdAt < datetime(2000-01-01T00:00:00Z)'), []);
    assert.deepEqual(
      await scoped('createdAt > datetime(2000-01-01T00:00:00.000+02:00)'),
      expect(() => true),
    );
  });

  it('anyOf, allOf, count and isEmpty on roleAttributes', async () => {
    assert.deepEqual(
      await scoped('anyOf(roleAttributes) = "three"'),
      expect((f) => f.roleAttributes.includes('three')),
    );
    assert.deepEqual(
      await scoped('anyOf(roleAttributes) in ["three", "odd"]'),
      expect((f) => f.roleAttributes.some((a) => a === 'three' || a === 'odd')),
    );
    assert.deepEqual(
      await scoped('allOf(roleAttributes) contains "o" and not isEmpty(roleAttributes)'),
      expect((f) => f.roleAttributes.length > 0 && f.roleAttributes.every((a) => a.includes('o'))),
    );
    assert.deepEqual(await scoped('allOf(roleAttributes) contains "o" and not isEmpty(roleAttributes)'), [n(1)]);
    assert.deepEqual(
      await scoped('anyOf(roleAttributes) contains "grp-"'),
      expect((f) => f.roleAttributes.some((a) => a.includes('grp-'))),
    );
    assert.deepEqual(
      await scoped('count(roleAttributes) > 2'),
      expect((f) => f.roleAttributes.length > 2),
    );
    assert.deepEqual(await scoped('count(roleAttributes) = 0'), [n(11)]);
    assert.deepEqual(await scoped('isEmpty(roleAttributes)'), [n(11)]);
    assert.deepEqual(
      await scoped('not isEmpty(roleAttributes)'),
      expect((_f, i) => i !== 11),
    );
  });

  it('tags.<key>, quoted identifiers and null', async () => {
    assert.deepEqual(
      await scoped('tags.color = "red"'),
      expect((f) => f.tags.color === 'red'),
    );
    assert.deepEqual(await scoped('tags.vip = true'), [n(7)]);
    assert.deepEqual(await scoped(`'tags.my-key' = "v"`), [n(3)]);
    assert.deepEqual(
      await scoped('externalId = null'),
      expect((f) => f.externalId === null),
    );
    assert.deepEqual(
      await scoped('externalId != null'),
      expect((f) => f.externalId !== null),
    );
  });

  it('not, and, or, parentheses; AND binds tighter than OR; keywords are case-insensitive', async () => {
    assert.deepEqual(
      await scoped(`not (name = "${n(1)}")`),
      expect((_f, i) => i !== 1),
    );
    assert.deepEqual(await scoped(`name = "${n(1)}" or name = "${n(5)}" and isAdmin = true`), [n(1), n(5)]);
    assert.deepEqual(await scoped(`(name = "${n(1)}" or name = "${n(4)}") and isAdmin = false`), [n(1), n(4)]);
    assert.deepEqual(await scoped(`name = "${n(1)}" OR name = "${n(2)}"`), [n(1), n(2)]);
    assert.deepEqual(
      await scoped('true'),
      expect(() => true),
    );
    assert.deepEqual(await scoped('false'), []);
  });

  it('string escapes', async () => {
    // (not named `${P}-...`, so the other filters' counts are unaffected)
    const quoted = `esc-${P}"q\\d`;
    await createIdentity(admin, { name: quoted });
    assert.deepEqual(await names(`name = "esc-${P}\\"q\\\\d"`), [quoted]);
  });
});

describe('sort by, skip and limit inside the filter', () => {
  const scope = `name contains "${P}-"`;

  it('sort by name asc and desc, with more than one field', async () => {
    const all = expect(() => true);
    assert.deepEqual(await names(`${scope} sort by name asc`), all);
    assert.deepEqual(await names(`${scope} sort by name desc`), [...all].reverse());
    assert.deepEqual(await names(`${scope} SORT BY isAdmin desc, name asc`), [n(5), ...all.filter((x) => x !== n(5))]);
  });

  it('skip and limit', async () => {
    const res = await admin.get('/identities', { query: { filter: `${scope} sort by name skip 2 limit 3` } });
    assertStatus(res, 200);
    assert.deepEqual(
      res.body.data.map((i: { name: string }) => i.name),
      [n(2), n(3), n(4)],
    );
    assert.equal(res.body.meta.pagination.limit, 3);
    assert.equal(res.body.meta.pagination.offset, 2);
    assert.equal(res.body.meta.pagination.totalCount, 12);
  });

  it('limit none returns everything', async () => {
    const res = await admin.get('/identities', { query: { filter: `${scope} sort by name limit none` } });
    assertStatus(res, 200);
    assert.equal(res.body.data.length, 12);
    assert.equal(res.body.meta.pagination.limit, Number('9223372036854775807'));
  });

  it('limit and skip in the filter take precedence over the parameters', async () => {
    const res = await admin.get('/identities', {
      query: { filter: `${scope} sort by name skip 1 limit 4`, limit: 2, offset: 7 },
    });
    assertStatus(res, 200);
    assert.deepEqual(
      res.body.data.map((i: { name: string }) => i.name),
      [n(1), n(2), n(3), n(4)],
    );
  });

  it('default order is by id', async () => {
    const res = await admin.get('/identities', { query: { filter: scope, limit: -1 } });
    const ids = res.body.data.map((i: { id: string }) => i.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  });
});

describe('paging parameters', () => {
  it('totalCount of a filter on one set counts each entity once, whatever the page', async () => {
    // Names outside the fixtures' `${P}-` prefix, so that the scoped filters above never see these identities.
    const [a, b] = [`${P}set-a`, `${P}set-b`];
    await createIdentity(admin, { name: a, roleAttributes: [`${P}-x`, `${P}-y`] });
    await createIdentity(admin, { name: b, roleAttributes: [`${P}-x`] });
    const total = async (filter: string) => {
      const res = await admin.get('/identities', { query: { limit: 1, filter } });
      assertStatus(res, 200, filter);
      assert.equal(res.body.data.length, 1, filter);
      return res.body.meta.pagination.totalCount as number;
    };
    assert.equal(await total(`anyOf(roleAttributes) = "${P}-x"`), 2);
    assert.equal(await total(`anyOf(roleAttributes) = "${P}-y"`), 1);
    assert.equal(await total(`anyOf(roleAttributes) in ["${P}-x", "${P}-y"]`), 2, 'an entity holding both is one');
    assert.equal(await total(`anyOf(roleAttributes) contains "${P}-"`), 2);
  });

  const filter = `name contains "${P}-"`;
  async function page(query: Record<string, string | number>) {
    const res = await admin.get('/identities', { query: { filter, ...query } });
    assertStatus(res, 200, JSON.stringify(query));
    return {
      count: res.body.data.length as number,
      p: res.body.meta.pagination as { limit: number; offset: number; totalCount: number },
    };
  }

  it('defaults to 10', async () => {
    const r = await page({});
    assert.equal(r.count, 10);
    assert.deepEqual(r.p, { limit: 10, offset: 0, totalCount: 12 });
  });

  it('limit 0 and limit < -1 give the default', async () => {
    for (const limit of [0, -2, -100]) {
      const r = await page({ limit });
      assert.equal(r.count, 10, `limit ${limit}`);
      assert.equal(r.p.limit, 10, `limit ${limit}`);
    }
  });

  it('clamps limits above 500', async () => {
    const r = await page({ limit: 1000 });
    assert.equal(r.count, 12);
    assert.equal(r.p.limit, 500);
  });

  it('-1 means all', async () => {
    const r = await page({ limit: -1 });
    assert.equal(r.count, 12);
    assert.equal(r.p.limit, Number('9223372036854775807'));
  });

  it('offset pages through; negative offsets are 0; huge offsets are capped', async () => {
    const r = await page({ limit: 5, offset: 10 });
    assert.equal(r.count, 2);
    assert.deepEqual(r.p, { limit: 5, offset: 10, totalCount: 12 });
    const neg = await page({ limit: 5, offset: -3 });
    assert.equal(neg.p.offset, 0);
    assert.equal(neg.count, 5);
    const huge = await page({ limit: 5, offset: 200000 });
    assert.equal(huge.p.offset, 100000);
    assert.equal(huge.count, 0);
  });

  it('non-integer limit or offset is 400 INVALID_PAGINATION naming the parameter', async () => {
    for (const [param, value] of [
      ['limit', 'abc'],
      ['limit', '1.5'],
      ['offset', 'x'],
      ['offset', '2.5'],
    ] as const) {
      const res = await admin.get('/identities', { query: { [param]: value } });
      const err = assertError(res, 400, 'INVALID_PAGINATION');
      assert.ok(JSON.stringify(err).includes(param), `the error names ${param}: ${JSON.stringify(err)}`);
    }
  });
});

describe('filterable fields and invalid filters', () => {
  it('meta.filterableFields lists the identity symbols', async () => {
    const res = await admin.get('/identities', { query: { limit: 1 } });
    const fields = res.body.meta.filterableFields as string[];
    for (const f of [
      'id',
      'createdAt',
      'updatedAt',
      'name',
      'roleAttributes',
      'externalId',
      'type',
      'authPolicyId',
      'isAdmin',
      'isDefaultAdmin',
    ]) {
      assert.ok(fields.includes(f), `${f} in ${JSON.stringify(fields)}`);
    }
  });

  /** The error text (message plus cause) that a user would read. */
  function errorText(err: Record<string, any>): string {
    return `${err.message} ${err.cause?.message ?? ''} ${err.cause?.reason ?? ''}`;
  }

  const cases: Array<[string, RegExp]> = [
    ['foo = "x"', /foo/],
    ['name = ', /column|position|end|input|offset/i],
    [`name = "x" andd isAdmin = true`, /andd|column|position/i],
    ['name contains', /column|position|end|input/i],
    ['roleAttributes = "x"', /roleAttributes/],
    ['anyOf(name) = "x"', /name/],
    ['name = "unterminated', /column|position|unterminated|string|end/i],
    ['isAdmin = "yes"', /isAdmin|type|operand|bool/i],
    ['name in []', /column|position|empty|\]/i],
    ['createdAt > datetime(not-a-date)', /datetime|date|column|position/i],
    ['name = "x" sort by bogus', /bogus/],
    ['name = "x" limit many', /many|column|position/i],
  ];
  for (const [filter, where] of cases) {
    it(`${filter} -> 400 INVALID_FILTER saying where`, async () => {
      const res = await admin.get('/identities', { query: { filter } });
      const err = assertError(res, 400, 'INVALID_FILTER');
      assert.match(errorText(err), where, `the message points at the problem: ${JSON.stringify(err)}`);
    });
  }
});
