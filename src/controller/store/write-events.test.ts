// Store.onWrite: each write is told as it is made, and a transaction's kinds of write again once it commits.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, storesUnderTest, type TestDatabase } from '../../../test/helpers/postgres.js';
import type { WriteEvent } from './repository.js';
import { Store } from './store.js';

const now = new Date().toISOString();

for (const kind of storesUnderTest()) {
  describe(`Store.onWrite (${kind})`, () => {
    let store: Store;
    let db: TestDatabase | undefined;
    const heard: WriteEvent[] = [];
    before(async () => {
      db = kind === 'postgres' ? await createTestDatabase({ migrated: true }) : undefined;
      store = await Store.open(db ? { postgres: db.url } : { sqlite: ':memory:' });
      store.onWrite((event) => heard.push(event));
    });
    after(async () => {
      await store.close();
      await db?.drop();
    });
    const identity = (name: string) => ({ name, type: 'Default', isAdmin: false });

    it("tells a transaction's writes as made, then each kind of them once more after the commit", async () => {
      heard.length = 0;
      let during = 0;
      await store.tx(async () => {
        const repo = store.repo('identity');
        const id = await repo.insert(identity('one'), { now });
        await repo.insert(identity('two'), { now });
        await repo.insert(identity('three'), { now });
        await repo.update(id, { isAdmin: true }, now);
        during = heard.length;
      });
      assert.equal(during, 4);
      assert.deepEqual(heard.slice(4), [
        { resource: 'identity', op: 'insert' },
        { resource: 'identity', op: 'update', fields: ['isAdmin'] },
      ]);
    });

    it('tells nothing more of a transaction that rolled back, nor of a write outside one', async () => {
      heard.length = 0;
      await assert.rejects(
        store.tx(async () => {
          await store.repo('identity').insert(identity('gone'), { now });
          throw new Error('rolled back');
        }),
      );
      await store.repo('identity').insert(identity('alone'), { now });
      assert.deepEqual(heard, [
        { resource: 'identity', op: 'insert' },
        { resource: 'identity', op: 'insert' },
      ]);
    });
  });
}
