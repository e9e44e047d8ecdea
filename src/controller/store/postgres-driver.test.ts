// The PostgreSQL driver: prepared statements named (parsed and planned once per connection) up to a cap, and
// transactions that PostgreSQL aborts for a deadlock run again.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { PG_URL_VARIABLE, createTestDatabase } from '../../../test/helpers/postgres.js';
import { PostgresDriver } from './postgres-driver.js';

const skip = process.env[PG_URL_VARIABLE] ? false : `${PG_URL_VARIABLE} is not set`;

describe('PostgresDriver: named statements', { skip }, () => {
  it('prepares each statement once per connection by name, and no more than the cap of distinct ones', async () => {
    const db = await createTestDatabase();
    const driver = await PostgresDriver.open(db.url, { namedStatements: 3 });
    try {
      // One transaction: one connection, whose prepared statements the server lists.
      const prepared = await driver.tx(async () => {
        for (let round = 0; round < 2; round++) {
          for (let n = 0; n < 6; n++) assert.equal((await driver.get<{ v: number }>(`SELECT ? + ${n} AS v`, [round]))!.v, round + n);
        }
        return driver.all<{ name: string; statement: string }>('SELECT name, statement FROM pg_prepared_statements ORDER BY name');
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
      assert.equal(runs, 3, 'one of the two ran twice');
      assert.deepEqual(await driver.all('SELECT id, v FROM pair ORDER BY id'), [{ id: 1, v: 2 }, { id: 2, v: 2 }]);
    } finally {
      await driver.close();
      await db.drop();
    }
  });
});
