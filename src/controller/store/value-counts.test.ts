// `anyOf(roleAttributes) = "x"` counted from the set's value counts (PostgreSQL), which statement triggers keep:
// every write of the side rows (inserts, replaced sets, cascaded deletes, a rolled back transaction) must leave
// the same total as counting the owners, on both stores.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseQuery } from '../../protocol/zitiql/index.js';
import { resource } from '../../resources/index.js';
import { createTestDatabase, storesUnderTest } from '../../../test/helpers/postgres.js';
import { postgresDialect } from './dialects/postgres.js';
import type { Driver } from './driver.js';
import { filterSchema } from './filter-schema.js';
import { compileQuery } from './filter-sql.js';
import { MIGRATIONS } from './migrations/index.js';
import type { Repository } from './repository.js';
import { Store } from './store.js';

const now = () => new Date().toISOString();
const VALUES = ['red', 'green', 'blue', 'gold', 'teal'];

/** A small deterministic generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

async function assertTotals(repo: Repository, model: Map<string, string[]>, when: string): Promise<void> {
  for (const value of [...VALUES, 'none-holds-this']) {
    const { totalCount } = await repo.list({ filter: `anyOf(roleAttributes) = "${value}"`, limit: 1 });
    const held = [...model.values()].filter((attributes) => attributes.includes(value)).length;
    assert.equal(totalCount, held, `${when}: ${value}`);
  }
}

it('on PostgreSQL the total of one anyOf equality is read from the value counts', () => {
  const compiled = compileQuery(
    parseQuery('anyOf(roleAttributes) = "red"'),
    filterSchema(resource('identity')),
    postgresDialect,
  );
  assert.match(compiled.count?.sql ?? '', /"identities_roleAttributes_value_counts"/);
});

for (const kind of storesUnderTest()) {
  describe(`value counts follow every write of a set (${kind})`, () => {
    it('inserts, replaced sets, deletes, a rolled back transaction, and a database made before them', async () => {
      const db = kind === 'postgres' ? await createTestDatabase() : undefined;
      const location = db ? { postgres: db.url } : { sqlite: ':memory:' };
      let store = await Store.open(location);
      try {
        let repo = store.repo('identity');
        const next = random(11);
        const pick = () => VALUES.filter(() => next() < 0.4);
        const model = new Map<string, string[]>();
        const rows = Array.from({ length: 60 }, (_, i) => ({ name: `id-${i}`, roleAttributes: pick() }));
        const ids = await repo.insertMany(
          rows.map((values) => ({ values: { ...values, type: 'Default', isAdmin: false } })),
          { now: now() },
        );
        for (const [i, id] of ids.entries()) model.set(id, rows[i].roleAttributes);
        await assertTotals(repo, model, 'after a batch of inserts');

        for (const id of ids.slice(0, 20)) {
          const roleAttributes = pick();
          await repo.update(id, { roleAttributes }, now());
          model.set(id, roleAttributes);
        }
        await assertTotals(repo, model, 'after replaced sets');

        for (const id of ids.slice(20, 30)) {
          await repo.delete(id);
          model.delete(id);
        }
        await assertTotals(repo, model, 'after deletes (the side rows cascade)');

        // No write of the store updates a side row in place today; one that did must be counted too.
        const [owner, held] = [...model].find(
          ([, attributes]) => attributes.length > 0 && !attributes.includes('teal'),
        )!;
        const driver = (store as unknown as { driver: Driver }).driver;
        await driver.run(
          `UPDATE "identities_roleAttributes" SET "value" = 'teal' WHERE "ownerId" = ? AND "value" = ?`,
          [owner, held[0]],
        );
        model.set(owner, [...held.slice(1), 'teal']);
        await assertTotals(repo, model, 'after a side row updated in place');

        const failed = store.tx(async () => {
          await repo.update(ids[40], { roleAttributes: VALUES }, now());
          await repo.insert({ name: 'gone', type: 'Default', isAdmin: false, roleAttributes: VALUES }, { now: now() });
          throw new Error('rolled back');
        });
        await assert.rejects(failed, /rolled back/);
        await assertTotals(repo, model, 'after a rolled back transaction');

        if (db) {
          // The database as migration 0010 left it: migration 0011 must count the rows already there.
          for (const op of MIGRATIONS[10].ops) {
            if (op.op === 'createIndex' && op.index.method === 'valueCounts') {
              await driver.exec(postgresDialect.dropIndex(op.index.name));
            }
          }
          await driver.run('DELETE FROM "schema_migrations" WHERE "id" = 11');
          await store.close();
          store = await Store.open(location);
          repo = store.repo('identity');
          await assertTotals(repo, model, 'after the upgrade');
        }
      } finally {
        await store.close();
        await db?.drop();
      }
    });
  });
}
