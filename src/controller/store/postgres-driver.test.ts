// The PostgreSQL driver's prepared statements: named (parsed and planned once per connection), up to a cap.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PG_URL_VARIABLE, createTestDatabase } from '../../../test/helpers/postgres.js';
import { PostgresDriver } from './postgres-driver.js';

describe('PostgresDriver: named statements', { skip: process.env[PG_URL_VARIABLE] ? false : `${PG_URL_VARIABLE} is not set` }, () => {
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
