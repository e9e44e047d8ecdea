// What configs do beyond the generic contract: data checked against the type's schema (the error names the
// failing path), schemas that must compile, and a type that cannot go while configs use it. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';

const PORTS = {
  type: 'object',
  properties: { hostname: { type: 'string' }, port: { type: 'integer', minimum: 1, maximum: 65535 } },
  required: ['hostname', 'port'],
  additionalProperties: false,
};

for (const store of storesUnderTest()) {
  describe(`configs and their types (${store})`, () => {
    let t: TestApp;
    let typeId: string;
    before(async () => {
      t = await createTestApp(store);
      const res = await t.admin.request('POST', '/config-types', { json: { name: 'tunneler.v1', schema: PORTS } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      typeId = res.body.data.id;
    });
    after(async () => t?.close());

    it('accepts data that satisfies the schema, and lists it under its type', async () => {
      const res = await t.admin.request('POST', '/configs', { json: { name: 'web', configTypeId: typeId, data: { hostname: 'web.internal', port: 443 } } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const config = (await t.admin.request('GET', `/configs/${res.body.data.id}`)).body.data;
      assert.deepEqual(config.data, { hostname: 'web.internal', port: 443 });
      assert.equal(config.configType.name, 'tunneler.v1');
      const listed = await t.admin.request('GET', `/config-types/${typeId}/configs`);
      assert.deepEqual(listed.body.data.map((c: { name: string }) => c.name), ['web']);
    });

    it('refuses data that fails the schema, naming the failing path, on create and on patch', async () => {
      const bad = await t.admin.request('POST', '/configs', { json: { name: 'bad', configTypeId: typeId, data: { hostname: 'x', port: 70000 } } });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.code, 'COULD_NOT_VALIDATE');
      assert.equal(bad.body.error.cause.field, 'data.port');
      const ok = await t.admin.request('POST', '/configs', { json: { name: 'ok', configTypeId: typeId, data: { hostname: 'x', port: 80 } } });
      const patched = await t.admin.request('PATCH', `/configs/${ok.body.data.id}`, { json: { data: { hostname: 'x' } } });
      assert.equal(patched.status, 400);
      assert.equal(patched.body.error.cause.field, 'data.port', 'the missing property is named');
      assert.deepEqual((await t.admin.request('GET', `/configs/${ok.body.data.id}`)).body.data.data, { hostname: 'x', port: 80 }, 'unchanged');
    });

    it('refuses a config type whose schema does not compile', async () => {
      const res = await t.admin.request('POST', '/config-types', { json: { name: 'broken', schema: { type: 'no-such-type' } } });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.cause.field, 'schema');
    });

    it('a type in use cannot be deleted (409 naming the field); once unused it can', async () => {
      const type = (await t.admin.request('POST', '/config-types', { json: { name: 'short-lived' } })).body.data.id;
      const config = (await t.admin.request('POST', '/configs', { json: { name: 'user-of-type', configTypeId: type, data: {} } })).body.data.id;
      const refused = await t.admin.request('DELETE', `/config-types/${type}`);
      assert.equal(refused.status, 409);
      assert.equal(refused.body.error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
      assert.equal(refused.body.error.cause.field, 'configTypeId');
      assert.equal((await t.admin.request('DELETE', `/configs/${config}`)).status, 200);
      assert.equal((await t.admin.request('DELETE', `/config-types/${type}`)).status, 200);
    });

    it('a changed schema applies to the next write', async () => {
      const type = (await t.admin.request('POST', '/config-types', { json: { name: 'evolving', schema: { type: 'object' } } })).body.data.id;
      const config = (await t.admin.request('POST', '/configs', { json: { name: 'evolving-1', configTypeId: type, data: { a: 1 } } })).body.data.id;
      assert.equal((await t.admin.request('PATCH', `/config-types/${type}`, { json: { schema: { type: 'object', required: ['b'] } } })).status, 200);
      const res = await t.admin.request('PATCH', `/configs/${config}`, { json: { data: { a: 2 } } });
      assert.equal(res.status, 400, JSON.stringify(res.body));
    });
  });
}
