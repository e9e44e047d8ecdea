// The PostgreSQL driver's statements outside a transaction: a few held connections with several statements in
// flight on each, a slow statement holding up none while a connection is idle, a connection the server ends let
// go and made again; and the readers of named statements' rows, kept per statement, following a changed table.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { PG_URL_VARIABLE, createTestDatabase, type TestDatabase } from '../../../test/helpers/postgres.js';
import { StoreUnavailableError } from './driver.js';
import { connectionEnded, HeldConnections } from './postgres-connections.js';
import { HELD_CONNECTIONS, PostgresDriver } from './postgres-driver.js';
import { Statement, type StatementResult } from './postgres-statement.js';

const skip = process.env[PG_URL_VARIABLE] ? false : `${PG_URL_VARIABLE} is not set`;

/** The server process a statement ran on, after it slept `seconds`. */
const PID_AFTER_SLEEP = 'SELECT pg_backend_pid() AS pid FROM pg_sleep(?::float8)';
/** The same as a statement the driver never sends twice (not a plain SELECT), so that its own failure shows. */
const PID_AFTER_SLEEP_SENT_ONCE = 'WITH s AS (SELECT pg_sleep(?::float8)) SELECT pg_backend_pid() AS pid FROM s';

describe('PostgresDriver: statements outside a transaction', { skip }, () => {
  let db: TestDatabase;
  let driver: PostgresDriver;
  before(async () => {
    db = await createTestDatabase();
    driver = await PostgresDriver.open(db.url);
  });
  after(async () => {
    await driver?.close();
    await db?.drop();
  });

  const pidAfter = async (seconds: number) => (await driver.get<{ pid: number }>(PID_AFTER_SLEEP, [seconds]))!.pid;

  it('share a few held connections, several in flight on each, rather than one pooled connection each', async () => {
    const pids = await Promise.all(Array.from({ length: 12 }, () => pidAfter(0.1)));
    const distinct = new Set(pids);
    assert.ok(distinct.size <= 4, `${distinct.size} connections for 12 statements at once`);
    assert.ok(distinct.size < pids.length, 'several statements ran on one connection');
  });

  it('are not held up by a slow statement while another connection is idle', async () => {
    const slow = pidAfter(1).then(() => 'slow');
    const quick = pidAfter(0).then(() => 'quick');
    assert.equal(await Promise.race([slow, quick]), 'quick');
    await slow;
  });

  it('fail as the store being unavailable when the server ends their connection, and run again after', async () => {
    const before = await pidAfter(0);
    // Its outcome taken at once: it fails while this test still ends the connections.
    const inFlight = driver.get<{ pid: number }>(PID_AFTER_SLEEP_SENT_ONCE, [5]).then(
      () => 'answered',
      (err: unknown) => err,
    );
    const dba = await PostgresDriver.open(db.url);
    try {
      // Every connection the driver holds now, the one running the slow statement among them.
      const held = await dba.all<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      assert.ok(held.some((h) => h.pid === before));
      for (const { pid } of held) await dba.get('SELECT pg_terminate_backend(?::int)', [pid]);
    } finally {
      await dba.close();
    }
    // The server says why (57P01), or the socket closed first, or was reset as a statement was sent on it: each
    // an answer of 503 where errors become answers (server/errors.ts).
    const unavailable = (err: unknown) => err instanceof StoreUnavailableError || connectionEnded(err);
    const failed = await inFlight;
    assert.ok(unavailable(failed), String(failed));
    // A statement sent before the driver has heard that a connection it holds was ended fails as unavailable too
    // (an answer of 503 with Retry-After), and lets that connection go: after at most one such failure per held
    // connection, statements run on a new one.
    let after: number | undefined;
    for (let failures = 0; after === undefined; failures++) {
      try {
        after = await pidAfter(0);
      } catch (err) {
        assert.ok(unavailable(err), String(err));
        assert.ok(failures < HELD_CONNECTIONS, `${failures + 1} statements failed after the connections were ended`);
      }
    }
    assert.notEqual(after, before, 'a new connection');
  });

  it('answer a plain read whose connection the server ended from another connection', async () => {
    await pidAfter(0);
    const inFlight = pidAfter(0.5);
    const dba = await PostgresDriver.open(db.url);
    let ended: number | undefined;
    try {
      // The connection running the read, once it runs it: only that one is ended.
      const running = `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND state = 'active'
        AND query LIKE '%pg_sleep%' AND pid <> pg_backend_pid()`;
      for (let tries = 0; ended === undefined && tries < 200; tries++) {
        ended = (await dba.get<{ pid: number }>(running))?.pid;
        if (ended === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      assert.ok(ended !== undefined, 'the read was seen running');
      await dba.get('SELECT pg_terminate_backend(?::int)', [ended]);
    } finally {
      await dba.close();
    }
    assert.notEqual(await inFlight, ended, 'answered, by another connection');
  });

  it("read a named statement's rows by the columns it now has once a new connection prepares it", async () => {
    await driver.exec('CREATE TABLE altered (id INT PRIMARY KEY, big BIGINT NOT NULL)');
    await driver.run('INSERT INTO altered VALUES (?, ?)', [1, 2 ** 40]);
    const read = 'SELECT * FROM altered WHERE id = ?';
    assert.deepEqual(await driver.get(read, [1]), { id: 1, big: 2 ** 40 });
    await driver.exec("ALTER TABLE altered ADD COLUMN note TEXT NOT NULL DEFAULT 'n'");
    // A transaction's connection comes from the pool: it prepares the statement, of the same name, anew.
    assert.deepEqual(await driver.tx(() => driver.get(read, [1])), { id: 1, big: 2 ** 40, note: 'n' });
    assert.deepEqual(await driver.run('UPDATE altered SET big = big + 1 WHERE id >= ?', [0]), { changes: 1 });
  });
});

describe('Statements in pipeline mode: identical new named statements sent together on one connection', {
  skip,
}, () => {
  let db: TestDatabase;
  let held: HeldConnections;
  before(async () => {
    db = await createTestDatabase();
    // One connection: every statement goes down the same pipeline, as statements queued on a busy one do.
    held = new HeldConnections(() => new pg.Client({ connectionString: db.url, pipeline: true }), 1);
  });
  after(async () => {
    await held?.close();
    await db?.drop();
  });

  /** Sends one statement as the driver does, prepared under `name`; answers its rows or its error. */
  const send = (text: string, name: string | undefined) =>
    held.run(
      (client) =>
        new Promise<unknown[]>((resolve, reject) => {
          const answered = (err: unknown, result?: StatementResult<unknown>) =>
            result ? resolve(result.rows) : reject(err);
          client.query(new Statement(text, name, [], new Map(), pg.types, answered));
        }),
    );
  const failure = (sent: Promise<unknown>) =>
    sent.then(
      () => assert.fail('the statement answered'),
      (err: { code?: string; message: string }) => `${err.code}: ${err.message}`,
    );
  const pid = async () => ((await send('SELECT pg_backend_pid() AS pid', undefined))[0] as { pid: number }).pid;

  it('each fail with their own error when the first fails to parse, and the name is prepared later', async () => {
    const connection = await pid();
    const read = 'SELECT id FROM later';
    const both = await Promise.all([failure(send(read, 'read_later')), failure(send(read, 'read_later'))]);
    assert.deepEqual(both, Array(2).fill('42P01: relation "later" does not exist'));
    assert.equal(await pid(), connection, 'the connection stays, and answers');
    // Had a failed Parse left the name recorded as prepared, these would be sent without one and fail (26000).
    await send('CREATE TABLE later AS SELECT 1 AS id', undefined);
    assert.deepEqual(await send(read, 'read_later'), [{ id: 1 }]);
    assert.deepEqual(await Promise.all([send(read, 'read_later'), send(read, 'read_later')]), [
      [{ id: 1 }],
      [{ id: 1 }],
    ]);
  });

  it('both answer when the first parses, which prepares the name', async () => {
    const read = 'SELECT 2 AS two';
    assert.deepEqual(await Promise.all([send(read, 'two'), send(read, 'two')]), [[{ two: 2 }], [{ two: 2 }]]);
    assert.deepEqual(await send(read, 'two'), [{ two: 2 }]);
    const prepared = await send("SELECT statement FROM pg_prepared_statements WHERE name = 'two'", undefined);
    assert.deepEqual(prepared, [{ statement: read }]);
  });
});
