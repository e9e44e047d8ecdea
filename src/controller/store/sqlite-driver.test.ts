// The SQLite driver's rows: objects made by a function compiled per statement from its columns' names.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SqliteDriver } from './sqlite-driver.js';

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
