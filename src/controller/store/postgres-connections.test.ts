// The PostgreSQL driver's statements outside a transaction: a few held connections with several statements in
// flight on each, a slow statement holding up none while a connection is idle, a connection the server ends let
// go and made again; and the readers of named statements' rows, kept per statement, following a changed table.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PG_URL_VARIABLE, createTestDatabase, type TestDatabase } from '../../../test/helpers/postgres.js';
import { StoreUnavailableError } from './driver.js';
import { PostgresDriver } from './postgres-driver.js';

const skip = process.env[PG_URL_VARIABLE] ? false : `${PG_URL_VARIABLE} is not set`;

/** The server process a statement ran on, after it slept `seconds`. */
const PID_AFTER_SLEEP = 'SELECT pg_backend_pid() AS pid FROM pg_sleep(?::float8)';

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
    const inFlight = pidAfter(5).then(
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
    const failed = await inFlight;
    // The server says why (57P01, classified as unavailable where errors become answers), or the socket closed first.
    const code = (failed as { code?: string }).code;
    assert.ok(failed instanceof StoreUnavailableError || code === '57P01', String(failed));
    const after = await pidAfter(0);
    assert.notEqual(after, before, 'a new connection');
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
