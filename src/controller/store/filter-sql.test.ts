import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { parseQuery } from '../../protocol/zitiql/index.js';
import { compileQuery, FilterError } from './filter-sql.js';
import type { FilterSchema } from './filter-sql.js';

const db = new Database(':memory:');
after(() => db.close());

db.exec(`
  CREATE TABLE identities (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    external_id TEXT,
    cost INTEGER,
    score REAL,
    is_admin INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    last_seen_at TEXT,
    secret TEXT,
    tags TEXT
  );
  CREATE TABLE identity_role_attributes (
    identity_id TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (identity_id, value)
  );
  CREATE TABLE identity_ports (identity_id TEXT NOT NULL, value INTEGER NOT NULL, PRIMARY KEY (identity_id, value));
`);

const rows = [
  {
    id: 'a',
    name: 'alpha',
    external_id: 'ext-1',
    cost: 10,
    score: 1.5,
    is_admin: 1,
    created_at: '2026-01-01T00:00:00.000Z',
    last_seen_at: '2026-05-01T00:00:00.000Z',
    secret: 's1',
    tags: JSON.stringify({ env: 'prod', tier: 1, managed: true, 'my-key': 'x', 'a.b': 'dotted', note: null }),
    roles: ['sales', 'eng'],
    ports: [80, 443],
  },
  {
    id: 'b',
    name: 'Bravo',
    external_id: null,
    cost: 20,
    score: null,
    is_admin: 0,
    created_at: '2026-02-01T00:00:00.000Z',
    last_seen_at: null,
    secret: 's2',
    tags: JSON.stringify({ env: 'dev', tier: '1', managed: false }),
    roles: ['sales'],
    ports: [8080],
  },
  {
    id: 'c',
    name: 'charlie 100%',
    external_id: 'ext-3',
    cost: null,
    score: 2.25,
    is_admin: 0,
    created_at: '2026-03-01T00:00:00.000Z',
    last_seen_at: null,
    secret: null,
    tags: null,
    roles: [],
    ports: [],
  },
  {
    id: 'd',
    name: 'delta_"quoted"',
    external_id: 'EXT-4',
    cost: 5,
    score: 0,
    is_admin: 1,
    created_at: '2025-12-31T23:59:59.999Z',
    last_seen_at: null,
    secret: null,
    tags: '{}',
    roles: ['eng', 'ops'],
    ports: [22],
  },
  {
    id: 'e',
    name: 'Echo',
    external_id: 'ext-5',
    cost: 100,
    score: -1,
    is_admin: 0,
    created_at: '2026-01-01T00:00:00.001Z',
    last_seen_at: '2026-06-01T12:00:00.000Z',
    secret: null,
    tags: JSON.stringify({ env: 'prod', tier: 2.5, seen: '2026-01-01T02:00:00+02:00' }),
    roles: ['ops'],
    ports: [],
  },
];

const insert = db.prepare(`INSERT INTO identities VALUES
  (@id, @name, @external_id, @cost, @score, @is_admin, @created_at, @last_seen_at, @secret, @tags)`);
const insertRole = db.prepare('INSERT INTO identity_role_attributes VALUES (?, ?)');
const insertPort = db.prepare('INSERT INTO identity_ports VALUES (?, ?)');
for (const { roles, ports, ...row } of rows) {
  insert.run(row);
  for (const role of roles) insertRole.run(row.id, role);
  for (const port of ports) insertPort.run(row.id, port);
}

const schema: FilterSchema = {
  idSql: 'e.id',
  tagsSql: 'e.tags',
  symbols: {
    name: { kind: 'scalar', type: 'string', sql: 'e.name' },
    externalId: { kind: 'scalar', type: 'string', sql: 'e.external_id' },
    cost: { kind: 'scalar', type: 'number', sql: 'e.cost', integer: true },
    score: { kind: 'scalar', type: 'number', sql: 'e.score' },
    isAdmin: { kind: 'scalar', type: 'boolean', sql: 'e.is_admin' },
    createdAt: { kind: 'scalar', type: 'datetime', sql: 'e.created_at' },
    lastSeenAt: { kind: 'scalar', type: 'datetime', sql: 'e.last_seen_at' },
    secret: { kind: 'scalar', type: 'string', sql: 'e.secret', sortable: false },
    roleAttributes: {
      kind: 'set',
      type: 'string',
      table: 'identity_role_attributes',
      ownerColumn: 'identity_id',
      valueColumn: 'value',
    },
    ports: { kind: 'set', type: 'number', table: 'identity_ports', ownerColumn: 'identity_id', valueColumn: 'value' },
  },
};

/** Runs a filter against the table and returns the ids of the page, in order. */
function ids(filter: string, s: FilterSchema = schema): string[] {
  const q = compileQuery(parseQuery(filter), s);
  const limit = q.limit === undefined || q.limit === 'none' ? -1 : q.limit;
  const statement = db.prepare(`SELECT e.id FROM identities e WHERE ${q.where} ORDER BY ${q.orderBy} LIMIT ? OFFSET ?`);
  return statement.pluck().all(...q.params, limit, q.skip ?? 0) as string[];
}

/** Same, ignoring order: for filters whose sort is not under test. */
const idSet = (filter: string): string[] => ids(filter).sort();

function assertFilterError(filter: string, message: string): void {
  assert.throws(
    () => compileQuery(parseQuery(filter), schema),
    (err: unknown) => {
      assert.ok(err instanceof FilterError, `expected FilterError, got ${String(err)}`);
      assert.equal(err.message, message);
      return true;
    },
  );
}

describe('compileQuery: scalar comparisons', () => {
  it('matches everything without a filter, in id order', () => {
    const q = compileQuery(parseQuery(''), schema);
    assert.deepEqual(q, { where: '1 = 1', params: [], orderBy: 'e.id ASC' });
    assert.deepEqual(ids(''), ['a', 'b', 'c', 'd', 'e']);
  });

  it('compares strings', () => {
    assert.deepEqual(idSet('name = "alpha"'), ['a']);
    assert.deepEqual(idSet('name = "ALPHA"'), []);
    assert.deepEqual(idSet('name != "alpha"'), ['b', 'c', 'd', 'e']);
    assert.deepEqual(idSet('name < "Echo"'), ['b']);
    assert.deepEqual(idSet('name <= "Echo"'), ['b', 'e']);
    assert.deepEqual(idSet('name > "charlie 100%"'), ['d']);
    assert.deepEqual(idSet('name >= "charlie 100%"'), ['c', 'd']);
    assert.deepEqual(idSet('name = "delta_\\"quoted\\""'), ['d']);
  });

  it('compares numbers, mixing integers and decimals', () => {
    assert.deepEqual(idSet('cost = 10'), ['a']);
    assert.deepEqual(idSet('cost = 10.0'), ['a']);
    assert.deepEqual(idSet('cost != 10'), ['b', 'c', 'd', 'e']);
    assert.deepEqual(idSet('cost < 10'), ['d']);
    assert.deepEqual(idSet('cost <= 10'), ['a', 'd']);
    assert.deepEqual(idSet('cost > 10'), ['b', 'e']);
    assert.deepEqual(idSet('cost >= 1e2'), ['e']);
    assert.deepEqual(idSet('score = 1.5'), ['a']);
    assert.deepEqual(idSet('score < 0'), ['e']);
    assert.deepEqual(idSet('score >= -1 and score < 2.25'), ['a', 'd', 'e']);
  });

  it('refuses, naming the field, literals an integer field cannot hold, and numbers beyond any field', () => {
    assertFilterError('cost = 1.5', 'cost is a 64-bit integer: 1.5 is not one');
    assertFilterError('cost in [1, 2.5]', 'cost is a 64-bit integer: 2.5 is not one');
    assertFilterError('cost between 0 and 1e19', 'cost is a 64-bit integer: 10000000000000000000 is not one');
    assertFilterError('count(roleAttributes) > 0.5', 'count(roleAttributes) is a 64-bit integer: 0.5 is not one');
    assertFilterError('cost < 1e999', 'cost: the number Infinity is too large to represent');
    assertFilterError('tags.tier = 1e999', 'tags.tier: the number Infinity is too large to represent');
    assert.deepEqual(idSet('cost < 9e18 and cost > -9e18'), ['a', 'b', 'd', 'e']);
    assert.deepEqual(idSet('score < 1.75'), ['a', 'd', 'e']);
  });

  it('compares booleans stored as 0/1', () => {
    assert.deepEqual(idSet('isAdmin'), ['a', 'd']);
    assert.deepEqual(idSet('isAdmin = true'), ['a', 'd']);
    assert.deepEqual(idSet('isAdmin = false'), ['b', 'c', 'e']);
    assert.deepEqual(idSet('isAdmin != true'), ['b', 'c', 'e']);
    assert.deepEqual(idSet('isAdmin != false'), ['a', 'd']);
    assert.deepEqual(idSet('not isAdmin'), ['b', 'c', 'e']);
    assert.deepEqual(compileQuery(parseQuery('isAdmin = false'), schema).params, [0]);
  });

  it('compares datetimes, whatever the literal offset', () => {
    assert.deepEqual(idSet('createdAt = datetime(2026-01-01T00:00:00Z)'), ['a']);
    assert.deepEqual(idSet('createdAt = datetime(2026-01-01T01:00:00+01:00)'), ['a']);
    assert.deepEqual(idSet('createdAt = datetime(2026-01-01T00:00:00.001Z)'), ['e']);
    assert.deepEqual(idSet('createdAt < datetime(2026-01-01T00:00:00Z)'), ['d']);
    assert.deepEqual(idSet('createdAt <= datetime(2026-01-01T00:00:00Z)'), ['a', 'd']);
    assert.deepEqual(idSet('createdAt > datetime(2026-01-01T00:00:00Z)'), ['b', 'c', 'e']);
    assert.deepEqual(idSet('createdAt >= datetime(2026-02-01T00:00:00Z)'), ['b', 'c']);
    assert.deepEqual(idSet('createdAt != datetime(2026-01-01T00:00:00Z)'), ['b', 'c', 'd', 'e']);
  });

  it('tests for null with = null and != null', () => {
    assert.deepEqual(idSet('externalId = null'), ['b']);
    assert.deepEqual(idSet('externalId != null'), ['a', 'c', 'd', 'e']);
    assert.deepEqual(idSet('lastSeenAt = null'), ['b', 'c', 'd']);
    assert.deepEqual(idSet('cost = null or score = null'), ['b', 'c']);
  });

  it('treats the constants true and false as conditions', () => {
    assert.deepEqual(idSet('true'), ['a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(idSet('false'), []);
    assert.deepEqual(idSet('not false'), ['a', 'b', 'c', 'd', 'e']);
  });

  it('applies and/or precedence', () => {
    assert.deepEqual(idSet('name = "Bravo" or name = "alpha" and isAdmin'), ['a', 'b']);
    assert.deepEqual(idSet('(name = "Bravo" or name = "alpha") and isAdmin'), ['a']);
    assert.deepEqual(idSet('isAdmin and cost > 5 or cost = null'), ['a', 'c']);
  });
});

describe('compileQuery: NULL values under not', () => {
  it('makes not (x = v) true for rows where x is NULL', () => {
    assert.deepEqual(idSet('not (externalId = "ext-1")'), ['b', 'c', 'd', 'e']);
    assert.deepEqual(idSet('not externalId = "ext-1"'), ['b', 'c', 'd', 'e']);
    assert.deepEqual(idSet('not (cost > 10)'), ['a', 'c', 'd']);
    assert.deepEqual(idSet('not (lastSeenAt < datetime(2026-06-01T00:00:00Z))'), ['b', 'c', 'd', 'e']);
  });

  it('treats != and the negated operators as the negation of their positive form', () => {
    assert.deepEqual(idSet('externalId != "ext-1"'), ['b', 'c', 'd', 'e']);
    assert.deepEqual(idSet('externalId not contains "ext"'), ['b', 'd']);
    assert.deepEqual(idSet('externalId not icontains "ext"'), ['b']);
    assert.deepEqual(idSet('cost not in [10, 20]'), ['c', 'd', 'e']);
    assert.deepEqual(idSet('cost not between 10 and 100'), ['c', 'd', 'e']);
  });

  it('keeps NULL rows out of positive tests, also inside and/or', () => {
    assert.deepEqual(idSet('externalId contains "ext"'), ['a', 'c', 'e']);
    assert.deepEqual(idSet('cost < 1000'), ['a', 'b', 'd', 'e']);
    assert.deepEqual(idSet('not (cost < 1000 and isAdmin)'), ['b', 'c', 'e']);
    assert.deepEqual(idSet('not (cost = 1 or score = 2.25)'), ['a', 'b', 'd', 'e']);
    assert.deepEqual(idSet('not not (cost < 1000)'), ['a', 'b', 'd', 'e']);
  });
});

describe('compileQuery: contains, in, between', () => {
  it('contains is a case-sensitive substring test without wildcards', () => {
    assert.deepEqual(idSet('name contains "ha"'), ['a', 'c']);
    assert.deepEqual(idSet('name contains "HA"'), []);
    assert.deepEqual(idSet('name contains "%"'), ['c']);
    assert.deepEqual(idSet('name contains "_"'), ['d']);
    assert.deepEqual(idSet('name contains "\\""'), ['d']);
    assert.deepEqual(idSet('name not contains "a"'), ['e']);
  });

  it('icontains ignores case', () => {
    assert.deepEqual(idSet('name icontains "BRAVO"'), ['b']);
    assert.deepEqual(idSet('name icontains "ha"'), ['a', 'c']);
    assert.deepEqual(idSet('name not icontains "A"'), ['e']);
  });

  it('contains works on numbers through their decimal form', () => {
    assert.deepEqual(idSet('cost contains 0'), ['a', 'b', 'e']);
    assert.deepEqual(idSet('score contains ".2"'), ['c']);
    assert.deepEqual(idSet('name contains 100'), ['c']);
  });

  it('in and not in match lists of each type', () => {
    assert.deepEqual(idSet('name in ["alpha", "Echo", "nobody"]'), ['a', 'e']);
    assert.deepEqual(idSet('name not in ["alpha", "Echo"]'), ['b', 'c', 'd']);
    assert.deepEqual(idSet('cost in [5, 20.0]'), ['b', 'd']);
    assert.deepEqual(idSet('createdAt in [datetime(2026-01-01T00:00:00Z), datetime(2026-03-01T01:00:00+01:00)]'), [
      'a',
      'c',
    ]);
    assert.deepEqual(idSet('createdAt not in [datetime(2026-01-01T00:00:00Z)]'), ['b', 'c', 'd', 'e']);
  });

  it('between is half-open: lower <= x < upper', () => {
    assert.deepEqual(idSet('cost between 10 and 20'), ['a']);
    assert.deepEqual(idSet('cost between 5 and 100'), ['a', 'b', 'd']);
    assert.deepEqual(idSet('cost between 10 and 10'), []);
    assert.deepEqual(idSet('cost not between 10 and 20'), ['b', 'c', 'd', 'e']);
    assert.deepEqual(idSet('createdAt between datetime(2026-01-01T00:00:00Z) and datetime(2026-02-01T00:00:00Z)'), [
      'a',
      'e',
    ]);
    assert.deepEqual(idSet('createdAt not between datetime(2026-01-01T00:00:00Z) and datetime(2026-02-01T00:00:00Z)'), [
      'b',
      'c',
      'd',
    ]);
  });
});

describe('compileQuery: set functions', () => {
  it('anyOf is true when some element matches', () => {
    assert.deepEqual(idSet('anyOf(roleAttributes) = "sales"'), ['a', 'b']);
    assert.deepEqual(idSet('anyOf(roleAttributes) != "sales"'), ['a', 'd', 'e']);
    assert.deepEqual(idSet('anyOf(roleAttributes) in ["ops", "nobody"]'), ['d', 'e']);
    assert.deepEqual(idSet('anyOf(roleAttributes) contains "p"'), ['d', 'e']);
    assert.deepEqual(idSet('anyOf(roleAttributes) icontains "ENG"'), ['a', 'd']);
    assert.deepEqual(idSet('anyOf(roleAttributes) not in ["sales"]'), ['a', 'd', 'e']);
    assert.deepEqual(idSet('anyOf(ports) >= 443'), ['a', 'b']);
    assert.deepEqual(idSet('anyOf(ports) between 20 and 81'), ['a', 'd']);
  });

  it('not anyOf means no element matches (including empty sets)', () => {
    assert.deepEqual(idSet('not anyOf(roleAttributes) = "sales"'), ['c', 'd', 'e']);
  });

  it('allOf is true when every element matches, and for empty sets', () => {
    assert.deepEqual(idSet('allOf(roleAttributes) = "sales"'), ['b', 'c']);
    assert.deepEqual(idSet('allOf(roleAttributes) in ["eng", "ops"]'), ['c', 'd', 'e']);
    assert.deepEqual(idSet('allOf(ports) < 1000'), ['a', 'c', 'd', 'e']);
    assert.deepEqual(idSet('allOf(roleAttributes) = "sales" and not isEmpty(roleAttributes)'), ['b']);
    assert.deepEqual(idSet('not allOf(roleAttributes) = "sales"'), ['a', 'd', 'e']);
  });

  it('count compares the number of elements', () => {
    assert.deepEqual(idSet('count(roleAttributes) = 0'), ['c']);
    assert.deepEqual(idSet('count(roleAttributes) >= 2'), ['a', 'd']);
    assert.deepEqual(idSet('count(roleAttributes) in [1]'), ['b', 'e']);
    assert.deepEqual(idSet('count(ports) between 1 and 2'), ['b', 'd']);
  });

  it('counts a filter of one anyOf condition over the set alone, as many as the filter keeps', () => {
    const filters = [
      'anyOf(roleAttributes) = "sales"',
      'anyOf(roleAttributes) != "sales"',
      'anyOf(roleAttributes) in ["eng", "ops"]',
      'anyOf(roleAttributes) not in ["eng"]',
      'anyOf(roleAttributes) contains "e"',
      'anyOf(ports) between 80 and 1000',
      'anyOf(ports) > 100',
    ];
    for (const filter of filters) {
      const q = compileQuery(parseQuery(filter), schema);
      assert.ok(q.count, `${filter}: a count of its own`);
      assert.doesNotMatch(q.count.sql, /identities/, `${filter}: counted without the entities`);
      assert.equal(
        db
          .prepare(q.count.sql)
          .pluck()
          .get(...q.count.params),
        ids(filter).length,
        filter,
      );
    }
  });

  it('counts any other filter over the entities', () => {
    const filters = [
      'allOf(roleAttributes) = "sales"',
      'not anyOf(roleAttributes) = "sales"',
      'anyOf(roleAttributes) = "sales" and name = "alpha"',
      'name = "alpha"',
      'count(ports) > 1',
    ];
    for (const filter of filters) {
      assert.equal(compileQuery(parseQuery(filter), schema).count, undefined, filter);
    }
  });

  it('isEmpty tests for an empty set', () => {
    assert.deepEqual(idSet('isEmpty(roleAttributes)'), ['c']);
    assert.deepEqual(idSet('isEmpty(ports)'), ['c', 'e']);
    assert.deepEqual(idSet('not isEmpty(ports)'), ['a', 'b', 'd']);
  });
});

describe('compileQuery: tags', () => {
  it('compares tag values by their JSON type', () => {
    assert.deepEqual(idSet('tags.env = "prod"'), ['a', 'e']);
    assert.deepEqual(idSet('tags.tier = 1'), ['a']);
    assert.deepEqual(idSet('tags.tier = "1"'), ['b']);
    assert.deepEqual(idSet('tags.tier > 1'), ['e']);
    assert.deepEqual(idSet('tags.tier >= "1"'), ['b']);
    assert.deepEqual(idSet('tags.tier in [1, 2.5]'), ['a', 'e']);
    assert.deepEqual(idSet('tags.tier between 0 and 2'), ['a']);
  });

  it('reads JSON booleans as booleans only', () => {
    assert.deepEqual(idSet('tags.managed = true'), ['a']);
    assert.deepEqual(idSet('tags.managed = false'), ['b']);
    assert.deepEqual(idSet('tags.managed'), ['a']);
    assert.deepEqual(idSet('tags.tier = true'), []);
    assert.deepEqual(idSet('tags.managed = 1'), []);
  });

  it('handles missing tags, JSON null and NULL tag columns', () => {
    assert.deepEqual(idSet('tags.env = null'), ['c', 'd']);
    assert.deepEqual(idSet('tags.env != null'), ['a', 'b', 'e']);
    assert.deepEqual(idSet('tags.note = null'), ['a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(idSet('not (tags.env = "prod")'), ['b', 'c', 'd']);
    assert.deepEqual(idSet('tags.env != "prod"'), ['b', 'c', 'd']);
  });

  it('takes keys with dashes and dots literally', () => {
    assert.deepEqual(idSet('\'tags.my-key\' = "x"'), ['a']);
    assert.deepEqual(idSet('tags.my-key = "x"'), ['a']);
    assert.deepEqual(idSet('tags.a.b = "dotted"'), ['a']);
    assert.deepEqual(idSet('tags.a = null'), ['a', 'b', 'c', 'd', 'e']);
  });

  it('supports contains and datetimes on tags', () => {
    assert.deepEqual(idSet('tags.env contains "ro"'), ['a', 'e']);
    assert.deepEqual(idSet('tags.env icontains "DEV"'), ['b']);
    assert.deepEqual(idSet('tags.tier contains 5'), ['e']);
    assert.deepEqual(idSet('tags.seen = datetime(2026-01-01T00:00:00Z)'), ['e']);
    assert.deepEqual(idSet('tags.seen < datetime(2026-01-01T00:00:01Z)'), ['e']);
  });

  it('binds the tag key as a parameter', () => {
    const q = compileQuery(parseQuery('tags.env = "prod"'), schema);
    assert.ok(!q.where.includes('env'), q.where);
    assert.ok(q.params.includes('env'), 'the key is bound, never written into the SQL text');
  });
});

describe('compileQuery: sort, skip and limit', () => {
  it('sorts by one or more fields, with the id as final tie-breaker', () => {
    assert.deepEqual(ids('sort by name'), ['b', 'e', 'a', 'c', 'd']);
    assert.deepEqual(ids('sort by name desc'), ['d', 'c', 'a', 'e', 'b']);
    assert.deepEqual(ids('sort by isAdmin desc'), ['a', 'd', 'b', 'c', 'e']);
    assert.deepEqual(ids('sort by isAdmin, createdAt desc'), ['c', 'b', 'e', 'a', 'd']);
    assert.deepEqual(ids('cost != null sort by cost desc'), ['e', 'b', 'a', 'd']);
    assert.equal(compileQuery(parseQuery('sort by isAdmin'), schema).orderBy, 'e.is_admin ASC, e.id ASC');
  });

  it('does not repeat the id when sorting by it', () => {
    assert.equal(compileQuery(parseQuery('sort by id desc'), schema).orderBy, 'e.id DESC');
    assert.deepEqual(ids('sort by id desc'), ['e', 'd', 'c', 'b', 'a']);
  });

  it('sorts by tags', () => {
    assert.deepEqual(ids('tags.env != null sort by tags.env desc'), ['a', 'e', 'b']);
    assert.deepEqual(ids("sort by 'tags.my-key' desc limit 1"), ['a']);
  });

  it('pages with skip and limit', () => {
    assert.deepEqual(ids('skip 1 limit 2'), ['b', 'c']);
    assert.deepEqual(ids('sort by name desc skip 3'), ['e', 'b']);
    assert.deepEqual(ids('isAdmin limit none'), ['a', 'd']);
    assert.deepEqual(compileQuery(parseQuery('limit none'), schema).limit, 'none');
    assert.deepEqual(compileQuery(parseQuery('skip 3 limit 7'), schema), {
      where: '1 = 1',
      params: [],
      orderBy: 'e.id ASC',
      skip: 3,
      limit: 7,
    });
  });

  it('rejects unsortable sort fields', () => {
    assertFilterError('sort by roleAttributes', "sort field 'roleAttributes' is not sortable");
    assertFilterError('sort by secret', "sort field 'secret' is not sortable");
    assertFilterError('sort by nope', "unknown symbol 'nope'");
    assert.throws(
      () => compileQuery({ sort: [{ field: "tags.x') --", direction: 'asc' }] }, schema),
      /sort field 'tags.x'\) --' is not sortable/,
    );
  });
});

describe('compileQuery: symbols of a referenced entity', () => {
  // Devices reference their owner (an identity of the table above); the owner's symbols read through `owner.`.
  db.exec(`CREATE TABLE devices (id TEXT PRIMARY KEY, owner_id TEXT, tags TEXT);
    INSERT INTO devices VALUES ('d1', 'a', NULL), ('d2', 'b', NULL), ('d3', 'e', NULL), ('d4', NULL, NULL);`);
  const devices: FilterSchema = {
    idSql: 'd.id',
    tagsSql: 'd.tags',
    symbols: { owner: { kind: 'scalar', type: 'string', sql: 'd.owner_id' } },
    links: { owner: { fkSql: 'd.owner_id', from: 'identities e', schema: () => schema } },
  };
  const deviceIds = (filter: string): string[] => {
    const q = compileQuery(parseQuery(filter), devices);
    const statement = db.prepare(`SELECT d.id FROM devices d WHERE ${q.where} ORDER BY ${q.orderBy}`);
    return statement.pluck().all(...q.params) as string[];
  };

  it('compares, sorts and tests for null through the reference', () => {
    assert.deepEqual(deviceIds('owner.name = "alpha"'), ['d1']);
    assert.deepEqual(deviceIds('owner.name in ["Bravo", "Echo"]'), ['d2', 'd3']);
    assert.deepEqual(deviceIds('owner.cost > 10'), ['d2', 'd3']);
    assert.deepEqual(deviceIds('owner.id = "e"'), ['d3']);
    assert.deepEqual(deviceIds('owner.name = null'), ['d4']);
    assert.deepEqual(deviceIds('not (owner.name = "alpha")'), ['d2', 'd3', 'd4']);
    assert.deepEqual(deviceIds('owner.name != null sort by owner.name desc'), ['d1', 'd3', 'd2']);
  });

  it("reads the referenced entity's sets and tags", () => {
    assert.deepEqual(deviceIds('anyOf(owner.roleAttributes) = "sales"'), ['d1', 'd2']);
    assert.deepEqual(deviceIds('isEmpty(owner.roleAttributes)'), ['d4']);
    assert.deepEqual(deviceIds('owner.tags.env = "prod"'), ['d1', 'd3']);
    assert.deepEqual(deviceIds('owner.name != null sort by owner.tags.env, owner.name'), ['d2', 'd3', 'd1']);
  });

  it('names the whole symbol when the referenced entity lacks it', () => {
    const error = (filter: string) => () => compileQuery(parseQuery(filter), devices);
    assert.throws(error('owner.nope = "x"'), new FilterError("unknown symbol 'owner.nope'"));
    assert.throws(error('name = "x"'), new FilterError("unknown symbol 'name'"));
    const mismatch = /operation owner.name = 1 is not supported with operands types string, number/;
    assert.throws(error('owner.name = 1'), mismatch);
  });
});

describe('compileQuery: safety and performance', () => {
  it('binds every literal instead of writing it into the SQL', () => {
    const filter = 'name = "alpha" or cost in [10, 20] or createdAt < datetime(2026-01-01T00:00:00Z)';
    const q = compileQuery(parseQuery(filter), schema);
    assert.ok(!/alpha|10|20|2026/.test(q.where), q.where);
    assert.deepEqual(q.params, ['alpha', 10, 20, '2026-01-01T00:00:00.000Z']);
  });

  it('is not vulnerable to SQL injection through values', () => {
    assert.deepEqual(ids(`name = "x'; DROP TABLE identities; --"`), []);
    assert.deepEqual(ids(`name contains "' OR 1=1 --"`), []);
    assert.equal(db.prepare('SELECT count(*) FROM identities').pluck().get(), 5);
  });

  it('does not resolve names from the object prototype', () => {
    assertFilterError('constructor = "x"', "unknown symbol 'constructor'");
    assertFilterError('toString', "unknown symbol 'toString'");
  });

  it('compiles equality to a plain comparison that can use an index', () => {
    const q = compileQuery(parseQuery('name = "alpha"'), schema);
    assert.equal(q.where, 'e.name = ?');
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN SELECT e.id FROM identities e WHERE ${q.where} ORDER BY ${q.orderBy}`)
      .all(...q.params) as { detail: string }[];
    assert.ok(
      plan.some((step) => /USING INDEX/.test(step.detail)),
      JSON.stringify(plan),
    );
  });
});

describe('compileQuery: semantic errors', () => {
  it('rejects unknown symbols', () => {
    assertFilterError('foo = 1', "unknown symbol 'foo'");
    assertFilterError('anyOf(foo) = 1', "unknown symbol 'foo'");
    assertFilterError('sort by foo', "unknown symbol 'foo'");
    assert.throws(
      () => compileQuery(parseQuery('tags.env = "prod"'), { ...schema, tagsSql: undefined }),
      new FilterError("unknown symbol 'tags.env'"),
    );
  });

  it('rejects set symbols outside set functions and set functions on scalars', () => {
    const message = "symbol 'roleAttributes' is a set symbol but is used in non-set function context";
    assertFilterError('roleAttributes = "sales"', message);
    assertFilterError('roleAttributes', message);
    assertFilterError('roleAttributes = null', message);
    assertFilterError('anyOf(name) = "x"', "symbol 'name' is not a set symbol and cannot be used with anyOf()");
    assertFilterError('count(name) > 1', "symbol 'name' is not a set symbol and cannot be used with count()");
    assertFilterError('isEmpty(tags.env)', "symbol 'tags.env' is not a set symbol and cannot be used with isEmpty()");
  });

  // [filter, operation as echoed, operand types]
  const mismatches: [string, string, string][] = [
    ['name = 5', 'name = 5', 'string, number'],
    ['cost = "x"', 'cost = "x"', 'number, string'],
    ['isAdmin = 1', 'isAdmin = 1', 'boolean, number'],
    ['name = true', 'name = true', 'string, boolean'],
    ['createdAt = "2026-01-01"', 'createdAt = "2026-01-01"', 'datetime, string'],
    ['cost < datetime(2026-01-01T00:00:00Z)', 'cost < datetime(2026-01-01T00:00:00.000Z)', 'number, datetime'],
    ['isAdmin contains "x"', 'isAdmin contains "x"', 'boolean, string'],
    ['createdAt not icontains 1', 'createdAt not icontains 1', 'datetime, number'],
    ['cost in ["a", "b"]', 'cost in ["a", "b"]', 'number, string'],
    ['name not between 1 and 2', 'name not between 1 and 2', 'string, number'],
    ['anyOf(ports) = "80"', 'anyOf(ports) = "80"', 'number, string'],
    ['count(roleAttributes) = "x"', 'count(roleAttributes) = "x"', 'number, string'],
    // = null applies to plain fields only
    ['count(roleAttributes) = null', 'count(roleAttributes) = null', 'number, null'],
    ['anyOf(roleAttributes) != null', 'anyOf(roleAttributes) != null', 'string, null'],
  ];
  for (const [filter, operation, types] of mismatches) {
    it(`rejects ${filter}`, () => {
      assertFilterError(filter, `operation ${operation} is not supported with operands types ${types}`);
    });
  }

  it('rejects non-boolean fields used as conditions', () => {
    const message = (name: string, type: string) =>
      `symbol '${name}' is of type ${type} and cannot be used as a boolean condition`;
    assertFilterError('name', message('name', 'string'));
    assertFilterError('not cost', message('cost', 'number'));
  });
});
