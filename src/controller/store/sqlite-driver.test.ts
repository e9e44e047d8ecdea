// The SQLite driver: its rows (objects made by a function compiled per statement from its columns' names), and the
// read transaction its reads share.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it, test } from 'node:test';
import { SqliteDriver } from './sqlite-driver.js';
import { openSqlite } from './sqlite-native.js';

test('a row names each column, the last of two of one name winning, whatever characters the names hold', async () => {
  const driver = SqliteDriver.open(':memory:');
  const sql = `SELECT 1 AS a, 'x' AS "we""ird\\ name ü", 2 AS a, NULL AS "__proto__ ", '{}' AS "__proto__"`;
  for (let read = 0; read < 2; read++) {
    const [row] = await driver.all<Record<string, unknown>>(sql);
    assert.deepEqual(Object.entries(row), [
      ['a', 2],
      ['we"ird\\ name ü', 'x'],
      ['__proto__ ', null],
      ['__proto__', '{}'],
    ]);
    assert.equal(Object.getPrototypeOf(row), Object.prototype, 'a column of that name is a field, not the prototype');
    assert.deepEqual(await driver.get(sql), row);
  }
  await driver.close();
});

describe("reads share one read transaction until the event loop's turn ends", () => {
  const dir = mkdtempSync(join(tmpdir(), 'ctl-sqlite-driver-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const turnEnds = () => new Promise((resolve) => setImmediate(resolve));

  /** The driver under test and another connection to its file, as an operator's `sqlite3` would be. */
  async function opened(name: string) {
    const file = join(dir, name);
    const driver = SqliteDriver.open(file);
    await driver.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    const other = openSqlite(file);
    const seenByOther = () => other.prepare('SELECT v FROM t ORDER BY id').pluck().all();
    return { driver, other, seenByOther };
  }

  it('a write ends it first: the write is committed, and seen elsewhere, before its promise settles', async () => {
    const { driver, other, seenByOther } = await opened('write.db');
    await driver.all('SELECT * FROM t');
    await driver.run("INSERT INTO t (v) VALUES ('run')");
    assert.deepEqual(seenByOther(), ['run'], 'a write through run() committed in the turn of a read');
    await driver.all('SELECT * FROM t');
    assert.deepEqual(await driver.get("INSERT INTO t (v) VALUES ('returning') RETURNING v"), { v: 'returning' });
    assert.deepEqual(seenByOther(), ['run', 'returning'], 'a write read through get() committed at once');
    await driver.all('SELECT * FROM t');
    await driver.tx(() => driver.run("INSERT INTO t (v) VALUES ('tx')"));
    assert.deepEqual(seenByOther(), ['run', 'returning', 'tx']);
    assert.deepEqual(await driver.all('SELECT v FROM t ORDER BY id'), [{ v: 'run' }, { v: 'returning' }, { v: 'tx' }]);
    other.close();
    await driver.close();
  });

  it("ends with the turn: another connection's write is seen by the next turn's reads", async () => {
    const { driver, other } = await opened('turn.db');
    assert.deepEqual(await driver.all('SELECT v FROM t'), []);
    other.prepare("INSERT INTO t (v) VALUES ('elsewhere')").run();
    assert.deepEqual(await driver.all('SELECT v FROM t'), [], "the turn's reads see one snapshot");
    await turnEnds();
    assert.deepEqual(await driver.all('SELECT v FROM t'), [{ v: 'elsewhere' }]);
    await turnEnds();
    // No read transaction left open: the other connection can checkpoint the whole log.
    const [checkpoint] = other.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    assert.equal(checkpoint.busy, 0);
    other.close();
    await driver.close();
  });
});
