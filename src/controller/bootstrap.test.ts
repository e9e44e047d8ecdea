import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PasswordHasher } from './auth/password.js';
import { writeBootRows } from './bootstrap.js';
import { entityWrites } from './model/writes.js';
import type { EntityWrites, Runtime } from './runtime.js';
import { builtInRows, Store } from './store/store.js';

/** The model's write path over `store` (no hooks), recording each insert as `resource:id`. */
function recordedWrites(store: Store, inserted: string[]): EntityWrites {
  const writes = entityWrites(
    store,
    () => ({}),
    () => ({}) as Runtime,
  );
  return {
    ...writes,
    async insert(resource, values, opts) {
      const id = await writes.insert(resource, values, opts);
      inserted.push(`${resource}:${id}`);
      return id;
    },
  };
}

describe('the rows written at boot', () => {
  const admin = { username: 'admin', password: 'boot-pw', passwords: new PasswordHasher({ N: 2 ** 10, r: 8, p: 1 }) };

  it('are written through the write path, once: the built-in rows, the default admin and its password', async () => {
    const store = await Store.open({ sqlite: ':memory:' }, { builtIns: false });
    try {
      assert.equal(await store.repo('auth-policy').find('default'), undefined, 'the store wrote no built-in row');
      const inserted: string[] = [];
      await writeBootRows(store, recordedWrites(store, inserted), new Date(), admin);
      const builtIns = builtInRows().map(({ def, row }) => `${def.name}:${row.id}`);
      const adminId = (await store.repo('identity').findAll({ isDefaultAdmin: true }))[0].id;
      const authenticatorId = (await store.repo('authenticator').findAll({ identityId: adminId }))[0].id;
      assert.deepEqual(inserted, [...builtIns, `identity:${adminId}`, `authenticator:${authenticatorId}`]);

      const again: string[] = [];
      await writeBootRows(store, recordedWrites(store, again), new Date(), admin);
      assert.deepEqual(again, [], 'a later start finds them and writes nothing');
    } finally {
      await store.close();
    }
  });
});
