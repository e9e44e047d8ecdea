// What web forms (OpenZiti's console among them) send back unchanged is accepted; anything that would change what
// cannot change, or a field no resource has, is still refused naming the field. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';

for (const store of storesUnderTest()) {
  describe(`form echoes (${store})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(store);
    });
    after(async () => t?.close());

    const create = async (path: string, json: Record<string, unknown>) => {
      const res = await t.admin.request('POST', path, { json });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.data.id as string;
    };

    it("takes an empty id on create and the entity's own id on update", async () => {
      const type = await create('/config-types', { name: 'echoed.v1', id: '', schema: {}, tags: {} });
      assert.equal(
        (await t.admin.request('PATCH', `/config-types/${type}`, { json: { id: type, name: 'echoed.v2' } })).status,
        200,
      );
      const other = await t.admin.request('PATCH', `/config-types/${type}`, { json: { id: 'someone-else' } });
      assert.equal(other.status, 400);
      assert.equal(other.body.error.cause.field, 'id');
    });

    it('takes a field fixed at creation when it holds its value, and refuses a new value naming it', async () => {
      const type = await create('/config-types', { name: 'fixed.v1' });
      const otherType = await create('/config-types', { name: 'fixed.v2' });
      const config = await create('/configs', { name: 'fixed', configTypeId: type, data: {} });
      assert.equal(
        (
          await t.admin.request('PATCH', `/configs/${config}`, {
            json: { name: 'fixed-2', configTypeId: type, data: {} },
          })
        ).status,
        200,
      );
      const moved = await t.admin.request('PATCH', `/configs/${config}`, { json: { configTypeId: otherType } });
      assert.equal(moved.status, 400);
      assert.equal(moved.body.error.cause.field, 'configTypeId');
      assert.match(moved.body.error.cause.reason, /cannot be changed/);
      assert.equal((await t.admin.request('GET', `/configs/${config}`)).body.data.configTypeId, type, 'unchanged');
    });

    it('reads "" in a field that is optional on create as absent: the default applies', async () => {
      const svc = await create('/services', {
        name: 'echo-svc',
        encryptionRequired: true,
        terminatorStrategy: '',
        configs: [],
        maxIdleTimeMillis: 0,
      });
      assert.equal((await t.admin.request('GET', `/services/${svc}`)).body.data.terminatorStrategy, 'smartrouting');
      const nameless = await t.admin.request('PATCH', `/services/${svc}`, { json: { name: '' } });
      assert.equal(nameless.status, 400, 'a required field stays required');
    });

    it('still refuses a field the resource does not have', async () => {
      const res = await t.admin.request('POST', '/config-types', { json: { name: 'strict.v1', colour: 'blue' } });
      assert.equal(res.status, 400);
      assert.match(JSON.stringify(res.body.error.cause), /colour/);
    });
  });
}
