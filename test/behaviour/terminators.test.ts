// What terminators do beyond the generic contract: written with service and router ids (both checked), read with
// entity references to both; on edge or transit routers; listed under their service; gone with their service or
// their router, as in OpenZiti. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';

for (const store of storesUnderTest()) {
  describe(`terminators (${store})`, () => {
    let t: TestApp;
    let n = 0;
    before(async () => {
      t = await createTestApp(store);
    });
    after(async () => t?.close());

    async function create(path: string, json: Record<string, unknown>): Promise<string> {
      const res = await t.admin.request('POST', path, { json });
      assert.equal(res.status, 201, `${path}: ${JSON.stringify(res.body)}`);
      return res.body.data.id as string;
    }

    const service = () => create('/services', { name: `svc-${++n}`, encryptionRequired: true });
    const edgeRouter = () => create('/edge-routers', { name: `er-${++n}` });
    const transitRouter = () => create('/transit-routers', { name: `tr-${++n}` });
    const terminator = (serviceId: string, routerId: string, extra: Record<string, unknown> = {}) =>
      create('/terminators', {
        service: serviceId,
        router: routerId,
        binding: 'transport',
        address: 'tcp:10.0.0.1:443',
        ...extra,
      });

    it('is read with entity references to its service and router, and their ids', async () => {
      const svc = await service();
      const er = await edgeRouter();
      const res = await t.admin.request('POST', '/terminators', {
        json: {
          service: svc,
          router: er,
          binding: 'edge',
          address: 'hosted:abc',
          cost: 12,
          precedence: 'required',
          identity: 'host-a',
          identitySecret: 'c2VjcmV0',
        },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const term = (await t.admin.request('GET', `/terminators/${res.body.data.id}`)).body.data;
      assert.equal(term.serviceId, svc);
      assert.deepEqual([term.service.entity, term.service.id, term.service.name], ['services', svc, `svc-${n - 1}`]);
      assert.equal(term.routerId, er);
      assert.deepEqual([term.router.entity, term.router.id, term.router.name], ['transit-routers', er, `er-${n}`]);
      assert.deepEqual(
        [term.binding, term.address, term.cost, term.dynamicCost, term.precedence, term.identity],
        ['edge', 'hosted:abc', 12, 12, 'required', 'host-a'],
      );
      assert.equal('identitySecret' in term, false, 'the secret is never served');
      const defaults = (await t.admin.request('GET', `/terminators/${await terminator(svc, er)}`)).body.data;
      assert.deepEqual([defaults.cost, defaults.precedence, defaults.identity], [0, 'default', '']);
    });

    it('refuses unknown services and routers, and values out of bounds, naming the field', async () => {
      const svc = await service();
      const er = await edgeRouter();
      const base = { service: svc, router: er, binding: 'transport', address: 'tcp:x:1' };
      const cases: [Record<string, unknown>, string][] = [
        [{ ...base, service: 'no-such-service' }, 'service'],
        [{ ...base, router: 'no-such-router' }, 'router'],
        [{ ...base, cost: 65536 }, 'cost'],
        [{ ...base, precedence: 'sometimes' }, 'precedence'],
        [{ ...base, binding: '' }, 'binding'],
        [{ ...base, address: undefined }, 'address'],
        [{ ...base, identitySecret: 'not base64!' }, 'identitySecret'],
      ];
      for (const [json, field] of cases) {
        const res = await t.admin.request('POST', '/terminators', { json });
        assert.equal(res.status, 400, JSON.stringify(json));
        assert.equal(res.body.error.cause.field, field, JSON.stringify(res.body.error));
      }
      const term = await terminator(svc, er);
      const patched = await t.admin.request('PATCH', `/terminators/${term}`, { json: { router: 'no-such-router' } });
      assert.equal(patched.status, 400);
      assert.equal(patched.body.error.cause.field, 'router');
      const identity = await t.admin.request('PATCH', `/terminators/${term}`, { json: { identity: 'later' } });
      assert.equal(identity.status, 400, 'the identity is set at creation only');
    });

    it('moves between routers, edge or transit, and filters by service, router and binding', async () => {
      const svc = await service();
      const er = await edgeRouter();
      const tr = await transitRouter();
      const term = await terminator(svc, er);
      assert.equal(
        (await t.admin.request('PATCH', `/terminators/${term}`, { json: { router: tr, address: 'tcp:10.0.0.2:80' } }))
          .status,
        200,
      );
      const moved = (await t.admin.request('GET', `/terminators/${term}`)).body.data;
      assert.deepEqual([moved.routerId, moved.router.name, moved.address], [tr, `tr-${n}`, 'tcp:10.0.0.2:80']);
      const names = [`router.name = "tr-${n}"`, `service.name = "svc-${n - 2}" and router.name contains "tr-"`];
      for (const filter of [
        `router = "${tr}"`,
        `service = "${svc}"`,
        `binding = "transport" and service = "${svc}"`,
        ...names,
      ]) {
        const res = await t.admin.request('GET', '/terminators', { query: `filter=${encodeURIComponent(filter)}` });
        assert.deepEqual(
          res.body.data.map((x: { id: string }) => x.id),
          [term],
          filter,
        );
      }
    });

    it("takes the OpenZiti console's form: empty precedence, identity and secret; the whole form on edit", async () => {
      const svc = await service();
      const er = await edgeRouter();
      // What ZAC 4.5's terminator form sends when nothing was picked for them.
      const form = {
        service: svc,
        router: er,
        identity: '',
        binding: 'transport',
        address: 'tcp:z:1',
        identitySecret: '',
        precedence: '',
        cost: 0,
      };
      const created = await t.admin.request('POST', '/terminators', { json: form });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = created.body.data.id;
      assert.equal((await t.admin.request('GET', `/terminators/${id}`)).body.data.precedence, 'default');
      // On edit it sends the whole form again, identity and secret included.
      const edited = await t.admin.request('PATCH', `/terminators/${id}`, {
        json: { ...form, address: 'tcp:z:2', precedence: 'failed', cost: 5 },
      });
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      const after = (await t.admin.request('GET', `/terminators/${id}`)).body.data;
      assert.deepEqual([after.address, after.precedence, after.cost], ['tcp:z:2', 'failed', 5]);
      const withIdentity = await terminator(svc, er, { identity: 'host-z' });
      const same = await t.admin.request('PUT', `/terminators/${withIdentity}`, {
        json: { ...form, identity: 'host-z' },
      });
      assert.equal(same.status, 200, 'the stored identity sent back changes nothing');
      const changed = await t.admin.request('PATCH', `/terminators/${withIdentity}`, { json: { identity: 'host-y' } });
      assert.equal(changed.status, 400, 'another identity is refused, not ignored');
      assert.equal(changed.body.error.cause.field, 'identity');
      const secret = await t.admin.request('PATCH', `/terminators/${withIdentity}`, {
        json: { identitySecret: 'c2VjcmV0' },
      });
      assert.equal(secret.status, 400);
      assert.equal(secret.body.error.cause.field, 'identitySecret');
    });

    it("lists a service's terminators under it", async () => {
      const svc = await service();
      const other = await service();
      const er = await edgeRouter();
      const mine = [await terminator(svc, er), await terminator(svc, er, { address: 'tcp:b:2' })].sort();
      await terminator(other, er);
      const res = await t.admin.request('GET', `/services/${svc}/terminators`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data.map((x: { id: string }) => x.id).sort(), mine);
      assert.equal(res.body.meta.pagination.totalCount, 2);
      // As OpenZiti answers it (a filter on terminators, the service not read): an unknown service has none.
      const unknown = await t.admin.request('GET', '/services/no-such-service/terminators');
      assert.deepEqual([unknown.status, unknown.body.data], [200, []]);
    });

    it('goes with its service, with its edge router and with its transit router', async () => {
      const er = await edgeRouter();
      const tr = await transitRouter();
      const svc = await service();
      const byService = await terminator(svc, er);
      assert.equal((await t.admin.request('DELETE', `/services/${svc}`)).status, 200);
      assert.equal((await t.admin.request('GET', `/terminators/${byService}`)).status, 404);

      const svc2 = await service();
      const byEdge = await terminator(svc2, er);
      const byTransit = await terminator(svc2, tr);
      assert.equal((await t.admin.request('DELETE', `/edge-routers/${er}`)).status, 200);
      assert.equal((await t.admin.request('GET', `/terminators/${byEdge}`)).status, 404);
      assert.equal((await t.admin.request('GET', `/terminators/${byTransit}`)).status, 200);
      assert.equal((await t.admin.request('DELETE', `/transit-routers/${tr}`)).status, 200);
      assert.equal((await t.admin.request('GET', `/terminators/${byTransit}`)).status, 404);
    });
  });
}
