import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordStatements } from './record-statements.js';
import { Store } from './store.js';

const now = () => new Date().toISOString();
const ATTRIBUTES = ['red', 'green', 'blue'];

test('an access list that selects most services answers, page by page, as its policies select', async () => {
  const store = await Store.open({ sqlite: ':memory:' });
  const statements = recordStatements(store);
  const services = await store.repo('service').insertMany(
    Array.from({ length: 240 }, (_, i) => ({
      values: {
        name: `svc-${(i * 37) % 240}`,
        encryptionRequired: true,
        roleAttributes: i % 5 === 4 ? [] : [ATTRIBUTES[i % 3]],
      },
    })),
    { now: now() },
  );
  const policy = (serviceRoles: string[], semantic = 'AnyOf') =>
    store
      .repo('service-policy')
      .insert(
        { name: `p-${serviceRoles.join()}-${semantic}`, type: 'Dial', semantic, identityRoles: [], serviceRoles },
        { now: now() },
      );
  const broad = [await policy(['#red', '#green']), await policy(['#blue']), await policy([`@${services[4]}`])];
  const narrow = [await policy([`@${services[9]}`, `@${services[14]}`]), await policy(['#red', '#blue'], 'AllOf')];
  const index = store.roleIndex('service-policy', 'serviceRoles');
  const walked = (from: number) => statements.slice(from).some((s) => s.includes('EXISTS (SELECT 1 FROM'));

  for (const [policyIds, walks] of [
    [broad, true],
    [narrow, false],
  ] as const) {
    const selected = await index.selectedIds(policyIds);
    const byName = new Map((await store.repo('service').list({ limit: -1 })).rows.map((r) => [r.id, r.name]));
    for (const sort of ['id', 'name desc']) {
      const key = (id: string) => (sort === 'id' ? id : (byName.get(id) as string));
      const expected = [...selected].sort((a, b) => (key(a) < key(b) ? -1 : 1) * (sort === 'id' ? 1 : -1));
      for (let offset = 0; offset < expected.length + 10; offset += 7) {
        const from = statements.length;
        const page = await store
          .repo('service')
          .list({ scope: { selectedBy: { index, policyIds } }, limit: 7, offset, sort });
        assert.equal(page.totalCount, expected.length);
        assert.deepEqual(
          page.rows.map((r) => r.id),
          expected.slice(offset, offset + 7),
          `${walks ? 'broad' : 'narrow'} policies, sorted by ${sort}, offset ${offset}`,
        );
        // A page near the end of a large set is read through its policies' rows: the walk would visit most entities.
        if (offset === 0) assert.equal(walked(from), walks, `${sort}: the plan chosen for the first page`);
      }
    }
  }
  await store.close();
});
