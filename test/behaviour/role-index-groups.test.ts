// The access index's grouped reads, which a page of services uses to read the posture checks of every granting
// policy at once (and the policies selecting each service): `#all` sets, `@id` and `#attribute` sets, and empty
// ones, answered per policy as reading each policy alone would. In-process, both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Driver } from '../../src/controller/store/driver.js';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';

for (const store of storesUnderTest()) {
  describe(`the access index, read for many policies at once (${store})`, () => {
    let t: TestApp;
    const checks: string[] = [];
    const policies: Record<string, string> = {};
    before(async () => {
      t = await createTestApp(store);
      for (const [name, roleAttributes] of [
        ['corp-domain', ['corp']],
        ['lab-domain', []],
      ] as const) {
        const res = await t.admin.request('POST', '/posture-checks', {
          json: { name, typeId: 'DOMAIN', domains: [`${name}.example`], roleAttributes },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        checks.push(res.body.data.id);
      }
      const roles = { all: ['#all'], byId: [`@${checks[1]}`], byAttribute: ['#corp'], none: [] };
      for (const [name, postureCheckRoles] of Object.entries(roles)) {
        const res = await t.admin.request('POST', '/service-policies', {
          json: {
            name,
            type: 'Dial',
            semantic: 'AnyOf',
            identityRoles: ['#all'],
            serviceRoles: ['#all'],
            postureCheckRoles,
          },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        policies[name] = res.body.data.id;
      }
    });
    after(async () => t?.close());

    it('selectedByEach answers each policy as selectedIds does for it alone', async () => {
      const index = t.app.runtime.store.roleIndex('service-policy', 'postureCheckRoles');
      const ids = Object.values(policies);
      const grouped = await index.selectedByEach(ids);
      assert.deepEqual([...grouped.keys()].sort(), [...ids].sort());
      for (const id of ids) assert.deepEqual([...grouped.get(id)!].sort(), (await index.selectedIds([id])).sort(), id);
      assert.deepEqual([...grouped.get(policies.all!)!].sort(), [...checks].sort(), '#all selects every check');
      assert.deepEqual(grouped.get(policies.byId!), [checks[1]]);
      assert.deepEqual(grouped.get(policies.byAttribute!), [checks[0]]);
      assert.deepEqual(grouped.get(policies.none!), []);
      assert.deepEqual(await index.selectedByEach([]), new Map());
    });

    it('countSelected counts what selectedIds lists, for policies that select by id or attribute', async () => {
      const index = t.app.runtime.store.roleIndex('service-policy', 'postureCheckRoles');
      const count = async (ids: string[]) => {
        const statement = index.countSelected(ids);
        const driver = (t.app.runtime.store as unknown as { driver: Driver }).driver;
        return (await driver.get<{ n: number }>(statement.sql, statement.params))!.n;
      };
      const some = [policies.byId!, policies.byAttribute!];
      assert.equal(await count(some), (await index.selectedIds(some)).length);
      assert.equal(await count(some), 2);
      assert.equal(await count([policies.byId!, policies.none!]), 1);
    });

    it('policiesSelectingAmong answers each entity as policiesSelecting does, #all included', async () => {
      const index = t.app.runtime.store.roleIndex('service-policy', 'postureCheckRoles');
      const ids = Object.values(policies);
      const grouped = await index.policiesSelectingAmong(ids, checks);
      for (const check of checks) {
        assert.deepEqual(
          [...grouped.get(check)!].sort(),
          (await index.policiesSelecting(check)).filter((p) => ids.includes(p)).sort(),
          check,
        );
      }
      assert.deepEqual([...grouped.get(checks[0]!)!].sort(), [policies.all!, policies.byAttribute!].sort());
    });
  });
}
