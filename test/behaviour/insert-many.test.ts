// Repository.insertMany, the store's batch write (seeding): rows, their side rows and the access index written a
// thousand rows per statement must be what inserting them one by one writes. In-process, both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../src/protocol/errors.js';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';

/** More than one batch of insertMany, so that its batches meet in one transaction. */
const COUNT = 2_345;
const ATTRIBUTES = ['a', 'b', 'c'];
const attributesOf = (i: number) => ATTRIBUTES.filter((_, bit) => (i >> bit) & 1);

for (const store of storesUnderTest()) {
  describe(`inserting many rows at once (${store})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(store);
      const policies = [
        { name: 'any-a', semantic: 'AnyOf', identityRoles: ['#a'] },
        { name: 'all-b-c', semantic: 'AllOf', identityRoles: ['#b', '#c'] },
        { name: 'any-b-c', semantic: 'AnyOf', identityRoles: ['#b', '#c'] },
        { name: 'everyone', semantic: 'AnyOf', identityRoles: ['#all'] },
      ];
      for (const policy of policies) {
        const json = { ...policy, type: 'Dial', serviceRoles: ['#all'] };
        const res = await t.admin.request('POST', '/service-policies', { json });
        assert.equal(res.status, 201, JSON.stringify(res.body));
      }
      const now = new Date().toISOString();
      const repo = t.app.runtime.store.repo('identity');
      const rows = Array.from({ length: COUNT }, (_, i) => ({
        values: { name: `many-${i}`, type: 'Default', isAdmin: false, roleAttributes: attributesOf(i) },
      }));
      const ids = await t.app.runtime.store.tx(() => repo.insertMany(rows, { now }));
      assert.equal(new Set(ids).size, COUNT);
    });
    after(async () => t?.close());

    it('writes every row with its defaults and its side rows', async () => {
      const repo = t.app.runtime.store.repo('identity');
      const listed = await repo.list({ filter: 'name contains "many-"', limit: 1 });
      assert.equal(listed.totalCount, COUNT);
      const row = (await repo.findOne({ name: 'many-5' }))!;
      assert.deepEqual(row.roleAttributes, ['a', 'c']);
      assert.equal(row.authPolicyId, 'default', 'a field left out gets its default');
      assert.equal(row.externalId, null);
      const holdingB = Array.from({ length: COUNT }, (_, i) => i).filter((i) => attributesOf(i).includes('b')).length;
      assert.equal((await repo.list({ filter: 'anyOf(roleAttributes) = "b"', limit: 1 })).totalCount, holdingB);
    });

    it('keeps the access index exact: each policy selects what its roles say', async () => {
      const index = t.app.runtime.store.roleIndex('service-policy', 'identityRoles');
      assert.deepEqual(await index.drift(), []);
      const policies = await t.app.runtime.store.repo('service-policy').findAll({});
      const byName = new Map(policies.map((p) => [p.name as string, p.id]));
      const selects = async (name: string) => (await index.selectedIds([byName.get(name)!])).length;
      const all = Array.from({ length: COUNT }, (_, i) => attributesOf(i));
      const count = (test: (attrs: string[]) => boolean) => all.filter(test).length;
      assert.equal(
        await selects('any-a'),
        count((a) => a.includes('a')),
      );
      assert.equal(
        await selects('all-b-c'),
        count((a) => a.includes('b') && a.includes('c')),
      );
      assert.equal(
        await selects('any-b-c'),
        count((a) => a.includes('b') || a.includes('c')),
      );
    });

    it('refuses a batch holding a duplicate by its field, and writes none of it', async () => {
      const repo = t.app.runtime.store.repo('identity');
      const rows = ['dup-1', 'dup-2', 'many-7'].map((name) => ({ values: { name, type: 'Default', isAdmin: false } }));
      const now = new Date().toISOString();
      await assert.rejects(
        t.app.runtime.store.tx(() => repo.insertMany(rows, { now })),
        (err: unknown) => {
          assert.ok(err instanceof ApiError, String(err));
          assert.equal((err.cause as { field?: string }).field, 'name');
          return true;
        },
      );
      assert.equal((await repo.list({ filter: 'name contains "dup-"' })).totalCount, 0);
    });
  });
}
