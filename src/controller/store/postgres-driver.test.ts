// The PostgreSQL driver: prepared statements named (parsed and planned once per connection) up to a cap, and
// transactions that PostgreSQL aborts for a deadlock run again.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Socket } from 'node:net';
import v8 from 'node:v8';
import { PG_URL_VARIABLE, createTestDatabase } from '../../../test/helpers/postgres.js';
import { postgresDialect } from './dialects/postgres.js';
import { CATALOGUE, resource } from '../../resources/index.js';
import { raw } from './fragment.js';
import { StoreUnavailableError } from './driver.js';
import { connectionEnded } from './postgres-connections.js';
import { PostgresDriver } from './postgres-driver.js';
import { declaredSchema } from './schema-model.js';
import { Store } from './store.js';

const skip = process.env[PG_URL_VARIABLE] ? false : `${PG_URL_VARIABLE} is not set`;

/** Runs `use` on a driver of a fresh database, closed and the database dropped afterwards, whatever `use` did. */
async function onFreshDriver(use: (driver: PostgresDriver) => Promise<void>): Promise<void> {
  const db = await createTestDatabase();
  const driver = await PostgresDriver.open(db.url);
  try {
    await use(driver);
  } finally {
    await driver.close();
    await db.drop();
  }
}

describe('PostgresDriver: named statements', { skip }, () => {
  it('prepares each statement once per connection by name, and no more than the cap of distinct ones', async () => {
    const db = await createTestDatabase();
    const driver = await PostgresDriver.open(db.url, { namedStatements: 3 });
    try {
      // One transaction: one connection, whose prepared statements the server lists.
      const prepared = await driver.tx(async () => {
        for (let round = 0; round < 2; round++) {
          for (let n = 0; n < 6; n++)
            assert.equal((await driver.get<{ v: number }>(`SELECT ? + ${n} AS v`, [round]))!.v, round + n);
        }
        return driver.all<{ name: string; statement: string }>(
          'SELECT name, statement FROM pg_prepared_statements ORDER BY name',
        );
      });
      assert.deepEqual(
        prepared.map((p) => p.statement),
        ['SELECT $1 + 0 AS v', 'SELECT $1 + 1 AS v', 'SELECT $1 + 2 AS v'],
        'the first three texts are named, the rest run unnamed, and a second round prepares nothing more',
      );
    } finally {
      await driver.close();
      await db.drop();
    }
  });
});

describe('PostgresDriver: named statements bounded by their text', { skip }, () => {
  it('names no more statements once their texts would pass the bound, however few they are', async () => {
    const db = await createTestDatabase();
    const text = (n: number) => `SELECT ? + ${n} AS v, '${'x'.repeat(40)}' AS pad`;
    // Room for the texts of two statements, not three.
    const driver = await PostgresDriver.open(db.url, { namedStatementChars: 2 * text(0).length + 10 });
    try {
      const prepared = await driver.tx(async () => {
        for (let n = 0; n < 4; n++) assert.equal((await driver.get<{ v: number }>(text(n), [1]))!.v, 1 + n);
        return driver.all<{ statement: string }>('SELECT statement FROM pg_prepared_statements ORDER BY name');
      });
      assert.deepEqual(
        prepared.map((p) => p.statement),
        [0, 1].map((n) => text(n).replace('?', '$1')),
      );
    } finally {
      await driver.close();
      await db.drop();
    }
  });
});

describe('PostgresDriver: rows', { skip }, () => {
  // Read by V8 itself: whether an object keeps its fields in place, or became a hash table.
  v8.setFlagsFromString('--allow-natives-syntax');
  const hasFastFields = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;
  v8.setFlagsFromString('--no-allow-natives-syntax');

  it('a row names each column, the last of two of one name winning, named statement or not', async () => {
    const db = await createTestDatabase();
    const columns = Array.from({ length: 20 }, (_, i) => `${i} AS "c${i}"`).join(', ');
    const sql = `SELECT 1 AS a, 'x' AS "we""ird\\ name ü", ${columns}, 2 AS a`;
    for (const namedStatements of [undefined, 0]) {
      const driver = await PostgresDriver.open(db.url, { namedStatements });
      try {
        for (let read = 0; read < 2; read++) {
          const [row] = await driver.all<Record<string, unknown>>(sql);
          const entries = Object.entries(row);
          assert.deepEqual(entries.slice(0, 2), [
            ['a', 2],
            ['we"ird\\ name ü', 'x'],
          ]);
          assert.equal(entries.length, 22);
          assert.deepEqual(entries.at(-1), ['c19', 19]);
          // More than a dozen fields given by computed names make a hash table, slower to make and to read.
          if (namedStatements === undefined) assert.ok(hasFastFields(row), 'the row of a named statement');
        }
      } finally {
        await driver.close();
      }
    }
    await db.drop();
  });
});

describe('PostgresDriver: deadlocks', { skip }, () => {
  it('runs again the transaction PostgreSQL chose to abort, so both writers succeed', async () => {
    const db = await createTestDatabase();
    const driver = await PostgresDriver.open(db.url);
    try {
      await driver.exec('CREATE TABLE pair (id INT PRIMARY KEY, v INT NOT NULL)');
      await driver.exec('INSERT INTO pair VALUES (1, 0), (2, 0)');
      // Each transaction locks one row, waits until the other has locked the other row, then wants that one too.
      let locked = 0;
      const bothLocked = async () => {
        for (locked++; locked < 2; ) await sleep(10);
      };
      let runs = 0;
      const writer = (first: number, second: number) =>
        driver.tx(async () => {
          runs++;
          await driver.run('UPDATE pair SET v = v + 1 WHERE id = ?', [first]);
          await bothLocked();
          await driver.run('UPDATE pair SET v = v + 1 WHERE id = ?', [second]);
        });
      await Promise.all([writer(1, 2), writer(2, 1)]);
      // Usually three runs; the one run again can take its first row before the other has its second, and deadlock
      // once more: what holds is that some run was aborted and each transaction committed once (below).
      assert.ok(runs >= 3, `a transaction was aborted and run again (${runs} runs)`);
      assert.deepEqual(await driver.all('SELECT id, v FROM pair ORDER BY id'), [
        { id: 1, v: 2 },
        { id: 2, v: 2 },
      ]);
    } finally {
      await driver.close();
      await db.drop();
    }
  });
});

describe('PostgreSQL: trigram indexes for contains', { skip }, () => {
  it('a migrated database has two pg_trgm indexes on every name: what contains and icontains compile to', async () => {
    const db = await createTestDatabase({ migrated: true });
    const driver = await PostgresDriver.open(db.url);
    try {
      const trigram = "SELECT indexname, indexdef FROM pg_indexes WHERE indexname LIKE '%_name%_trgm'";
      const indexes = await driver.all<{ indexname: string; indexdef: string }>(trigram);
      const definition = (name: string) => indexes.find((i) => i.indexname === name)?.indexdef ?? 'none';
      assert.match(definition('identities_name_trgm'), /USING gin \(name gin_trgm_ops\)/);
      assert.match(definition('identities_name_folded_trgm'), /USING gin \(upper\(name\) gin_trgm_ops\)/);
      const names = Object.values(declaredSchema(CATALOGUE, resource).indexes).filter((i) => i.method === 'substring');
      assert.equal(indexes.length, 2 * names.length, `two on each name: ${indexes.map((i) => i.indexname).join(' ')}`);
      await driver.exec(
        `INSERT INTO identities ("id", "createdAt", "updatedAt", "name", "type", "isAdmin") SELECT 'i' || n, '', '', ` +
          `'identity-' || n, 'Default', 0 FROM generate_series(1, 20000) n`,
      );
      await driver.exec('ANALYZE identities');
      // Whether the planner prefers the index depends on the rows; that it can use it for this test does not.
      const planOf = (ignoreCase: boolean) =>
        driver.tx(async () => {
          const test = postgresDialect.containsText(raw('e."name"'), 'itY-4321', ignoreCase);
          await driver.exec('SET LOCAL enable_seqscan = off');
          const explain = `EXPLAIN SELECT count(*) FROM identities e WHERE ${test.sql}`;
          const plan = await driver.all<{ 'QUERY PLAN': string }>(explain, test.params);
          const { n } = (await driver.get<{ n: number }>(
            `SELECT count(*)::int AS n FROM identities e WHERE ${test.sql}`,
            test.params,
          ))!;
          return { plan: plan.map((r) => r['QUERY PLAN']).join('\n'), n };
        });
      const contains = await planOf(false);
      assert.match(contains.plan, /Bitmap Index Scan on identities_name_trgm/);
      assert.equal(contains.n, 0, 'contains compares case');
      // icontains compares the upper-cased text: the index of upper(name) serves it.
      const icontains = await planOf(true);
      assert.match(icontains.plan, /Bitmap Index Scan on identities_name_folded_trgm/);
      assert.equal(icontains.n, 1, 'identity-4321, whatever the case of the needle');
    } finally {
      await driver.close();
      await db.drop();
    }
  });
});

describe('PostgreSQL: without trigram indexes', { skip }, () => {
  it('the store says at start that contains filters read every row, and nothing where the indexes are', async () => {
    const db = await createTestDatabase({ migrated: true });
    try {
      const lines: string[] = [];
      await (await Store.open({ postgres: db.url }, { log: (line) => lines.push(line) })).close();
      assert.equal(lines.length, 0, lines.join('\n'));
      const admin = await PostgresDriver.open(db.url);
      await admin.exec('DROP INDEX "identities_name_trgm"');
      await admin.close();
      const store = await Store.open({ postgres: db.url }, { log: (line) => lines.push(line) });
      await store.close();
      assert.equal(lines.length, 1, lines.join('\n'));
      assert.match(lines[0], /no trigram index on names .* `contains` filters read every row/);
    } finally {
      await db.drop();
    }
  });
});

describe('PostgresDriver: the background lock', { skip }, () => {
  it('is asked for once when sweeps ask together: never two queries at once on its connection', async () => {
    const db = await createTestDatabase();
    const driver = await PostgresDriver.open(db.url);
    try {
      await driver.claim();
      // The lock's connection is private: watched here through its query method, the one thing this test is about.
      const connection = (driver as unknown as { ownerLock: { query: (...args: unknown[]) => Promise<unknown> } })
        .ownerLock;
      const query = connection.query.bind(connection);
      let inFlight = 0;
      let most = 0;
      connection.query = async (...args: unknown[]) => {
        most = Math.max(most, ++inFlight);
        try {
          return await query(...args);
        } finally {
          inFlight--;
        }
      };
      const answers = await Promise.all([1, 2, 3, 4].map(() => driver.leadsBackgroundWork()));
      assert.deepEqual(answers, [true, true, true, true]);
      assert.equal(most, 1);
    } finally {
      await driver.close();
      await db.drop();
    }
  });
});

describe('PostgresDriver: a read on a connection the server ended', { skip }, () => {
  it('is made once more on another connection; a write, or a read that may hold one, never is', async () => {
    const db = await createTestDatabase();
    const driver = await PostgresDriver.open(db.url);
    // What pg reports for a statement on a connection the server ended (pg_terminate_backend, a restart).
    const ended = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    const held = (driver as unknown as { held: { run: (...args: unknown[]) => Promise<unknown> } }).held;
    const run = held.run;
    let calls = 0;
    held.run = function (this: unknown, ...args: unknown[]) {
      return calls++ === 0 ? Promise.reject(ended) : run.apply(this, args);
    };
    const endedOnce = async (statement: () => Promise<unknown>) => {
      calls = 0;
      const outcome = await statement().then(
        (value) => ({ value }),
        (err: unknown) => ({ err }),
      );
      return { ...outcome, calls };
    };
    try {
      await run.call(held, (client: { query: (sql: string) => Promise<unknown> }) =>
        client.query('CREATE TABLE t (id INT PRIMARY KEY)'),
      );
      assert.deepEqual(await endedOnce(() => driver.all('SELECT count(*)::int AS n FROM t')), {
        value: [{ n: 0 }],
        calls: 2,
      });
      assert.deepEqual(await endedOnce(() => driver.get(' select 1 AS one')), { value: { one: 1 }, calls: 2 });
      for (const write of [
        () => driver.run('INSERT INTO t VALUES (?)', [1]),
        () => driver.get('INSERT INTO t VALUES (?) RETURNING id', [2]),
        () => driver.all('WITH d AS (DELETE FROM t RETURNING id) SELECT id FROM d'),
      ]) {
        const { err, calls: made } = (await endedOnce(write)) as { err?: unknown; calls: number };
        assert.equal(made, 1, 'sent once');
        assert.ok(connectionEnded(err), String(err));
      }
    } finally {
      held.run = run;
      await driver.close();
      await db.drop();
    }
  });
});

describe('PostgresDriver: a write on a connection that closed under it', { skip }, () => {
  it('fails as the store being unavailable, to be tried again, not as an error of the request', () =>
    onFreshDriver(async (driver) => {
      // What pg itself reports for a statement whose connection closed: an Error with no SQLSTATE code.
      const closed = new Error('Connection terminated unexpectedly');
      const held = (driver as unknown as { held: { run: (...args: unknown[]) => Promise<unknown> } }).held;
      held.run = () => Promise.reject(closed);
      const err = await driver.run('CREATE TABLE t (id INT)').catch((e: unknown) => e);
      assert.ok(err instanceof StoreUnavailableError, String(err));
      assert.equal(
        err.message,
        'the connection to the database failed (Connection terminated unexpectedly): try again',
      );
      assert.equal(err.cause, closed);
    }));
});

describe('PostgresDriver: a pooled connection that fails while lent out', { skip }, () => {
  it('does not end the process: every pooled connection listens for its error from the start', () =>
    onFreshDriver(async (driver) => {
      const pool = (driver as unknown as { pool: import('pg').Pool }).pool;
      // What pg does when the server ends a lent connection before its borrower listens (the end and the
      // connection's readiness in one packet): the pool no longer listens, and an 'error' nobody hears is thrown.
      const client = await pool.connect();
      try {
        assert.doesNotThrow(() =>
          client.emit('error', new Error('terminating connection due to administrator command')),
        );
      } finally {
        client.release(true);
      }
    }));
});

describe('PostgresDriver: the connections it keeps', { skip }, () => {
  it('probe a quiet connection after 10 s (TCP keep-alive), not after the system default of two hours', async () => {
    const db = await createTestDatabase();
    const calls: unknown[][] = [];
    const { setKeepAlive } = Socket.prototype;
    Socket.prototype.setKeepAlive = function (this: Socket, ...args: Parameters<typeof setKeepAlive>) {
      calls.push(args);
      return setKeepAlive.apply(this, args);
    };
    let driver: PostgresDriver | undefined;
    try {
      driver = await PostgresDriver.open(db.url);
      await driver.get('SELECT 1 AS one');
      await driver.claim(); // the controller lock's own connection
    } finally {
      Socket.prototype.setKeepAlive = setKeepAlive;
      await driver?.close();
      await db.drop();
    }
    assert.ok(calls.length >= 2, 'keep-alive was set on the held connections and the lock connection');
    for (const call of calls) assert.deepEqual(call, [true, 10_000]);
  });
});

describe('PostgresDriver: statements read together by one key', { skip }, () => {
  it('reads those that cannot be gathered (a column PostgreSQL names ?column?) as they are, not failed', async () => {
    const db = await createTestDatabase();
    const driver = await PostgresDriver.open(db.url);
    try {
      const statements = [
        { sql: "SELECT ?::text || '-unnamed'", params: ['k'] },
        { sql: 'SELECT ?::text AS "named"', params: ['k'] },
      ];
      for (let round = 0; round < 2; round++) {
        assert.deepEqual(await driver.allTogether(statements), [[{ '?column?': 'k-unnamed' }], [{ named: 'k' }]]);
      }
    } finally {
      await driver.close();
      await db.drop();
    }
  });
});
