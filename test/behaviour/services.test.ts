// What services do beyond the generic contract: their configs (one per type, of types that target services, leaving
// a service when deleted), encryptionRequired fixed at create, the read model's `config` for the config types asked
// for, `permissions` and `postureQueries` from the presenter hook, and identities' service-config overrides. Both
// stores; read models checked against OpenZiti's Swagger.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { servicePresenter } from '../../src/controller/model/resources/service.js';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';
import { validateResponse } from '../helpers/spec.js';

const INTERCEPT = 'g7cIWbcGg';
const HOST = 'NH5p4FpGR';
const intercept = (host: string) => ({ protocols: ['tcp'], addresses: [host], portRanges: [{ low: 443, high: 443 }] });
const host = { protocol: 'tcp', address: 'localhost', port: 8443 };

for (const store of storesUnderTest()) {
  describe(`services and their configs (${store})`, () => {
    let t: TestApp;
    let n = 0;
    const fresh = (prefix: string) => `${prefix}-${++n}`;

    async function created(path: string, json: unknown): Promise<string> {
      const res = await t.admin.request('POST', path, { json });
      assert.equal(res.status, 201, `${path}: ${JSON.stringify(res.body)}`);
      return res.body.data.id;
    }
    const config = (configTypeId: string, data: unknown, name = fresh('cfg')) =>
      created('/configs', { name, configTypeId, data });
    const newService = (json: Record<string, unknown> = {}) =>
      created('/services', { name: fresh('svc'), encryptionRequired: true, ...json });
    async function get(path: string, query?: string) {
      const res = await t.admin.request('GET', path, { query });
      assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
      return res.body;
    }

    before(async () => {
      t = await createTestApp(store);
    });
    after(async () => t?.close());

    it('takes configs of different types, and lists the service under each config', async () => {
      const i = await config(INTERCEPT, intercept('web.internal'));
      const h = await config(HOST, host);
      const svc = await newService({ configs: [i, h] });
      assert.deepEqual(new Set((await get(`/services/${svc}`)).data.configs), new Set([i, h]));
      assert.deepEqual(
        (await get(`/configs/${i}/services`)).data.map((s: { id: string }) => s.id),
        [svc],
      );
      assert.deepEqual(
        new Set((await get(`/services/${svc}/configs`)).data.map((c: { id: string }) => c.id)),
        new Set([i, h]),
      );
    });

    it('refuses two configs of a type, one of a non-service type, an unknown config (400 naming configs)', async () => {
      const a = await config(INTERCEPT, intercept('a.internal'));
      const b = await config(INTERCEPT, intercept('b.internal'));
      const link = await config('router.link.v1', { listeners: [{ bind: 'tls:0.0.0.0:6262' }] });
      for (const configs of [[a, b], [link], ['no-such-config']]) {
        const res = await t.admin.request('POST', '/services', {
          json: { name: fresh('refused'), encryptionRequired: false, configs },
        });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.error.cause.field, 'configs');
      }
      const svc = await newService({ configs: [a] });
      const patched = await t.admin.request('PATCH', `/services/${svc}`, { json: { configs: [a, b] } });
      assert.equal(patched.status, 400);
      assert.deepEqual((await get(`/services/${svc}`)).data.configs, [a], 'unchanged');
    });

    it('a deleted config leaves the services that used it (as OpenZiti clears it)', async () => {
      const i = await config(INTERCEPT, intercept('gone.internal'));
      const h = await config(HOST, host);
      const svc = await newService({ configs: [i, h] });
      assert.equal((await t.admin.request('DELETE', `/configs/${i}`)).status, 200);
      assert.deepEqual((await get(`/services/${svc}`)).data.configs, [h]);
      const byFilter = await get('/services', `filter=${encodeURIComponent(`anyOf(configs) = "${i}"`)}`);
      assert.equal(byFilter.data.length, 0, 'the join rows went too');
    });

    it('takes the terminator strategies OpenZiti registers, refuses any other (400 naming the field)', async () => {
      for (const strategy of ['smartrouting', 'weighted', 'random', 'sticky']) {
        const svc = await newService({ terminatorStrategy: strategy });
        assert.equal((await get(`/services/${svc}`)).data.terminatorStrategy, strategy);
      }
      const refused = await t.admin.request('POST', '/services', {
        json: { name: fresh('bogus'), encryptionRequired: true, terminatorStrategy: 'bogus' },
      });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.error.cause.field, 'terminatorStrategy');
      const svc = await newService();
      const patched = await t.admin.request('PATCH', `/services/${svc}`, { json: { terminatorStrategy: 'bogus' } });
      assert.equal(patched.status, 400);
      assert.equal((await get(`/services/${svc}`)).data.terminatorStrategy, 'smartrouting', 'unchanged');
    });

    it('encryptionRequired is set at create: accepted in an update body, never applied', async () => {
      const svc = await newService({ encryptionRequired: true });
      assert.equal(
        (await t.admin.request('PATCH', `/services/${svc}`, { json: { encryptionRequired: false } })).status,
        200,
      );
      assert.equal((await get(`/services/${svc}`)).data.encryptionRequired, true);
      const put = await t.admin.request('PUT', `/services/${svc}`, {
        json: { name: fresh('renamed'), encryptionRequired: false },
      });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      const after = (await get(`/services/${svc}`)).data;
      assert.equal(after.encryptionRequired, true);
      assert.match(after.name, /^renamed-/);
    });

    it('serves config data only for config types asked for: name, id, comma-separated, repeated or all', async () => {
      const i = await config(INTERCEPT, intercept('typed.internal'));
      const h = await config(HOST, host);
      const svc = await newService({ configs: [i, h] });
      const filter = `filter=${encodeURIComponent(`id = "${svc}"`)}`;
      const listed = async (q: string) => (await get('/services', `${filter}&${q}`)).data[0].config;
      assert.deepEqual((await get(`/services/${svc}`)).data.config, {}, 'none asked for, none served');
      assert.deepEqual(await listed('configTypes=intercept.v1'), { 'intercept.v1': intercept('typed.internal') });
      assert.deepEqual(await listed(`configTypes=${HOST}`), { 'host.v1': host });
      assert.deepEqual(Object.keys(await listed('configTypes=intercept.v1,host.v1')).sort(), [
        'host.v1',
        'intercept.v1',
      ]);
      assert.deepEqual(Object.keys(await listed('configTypes=intercept.v1&configTypes=host.v1')).sort(), [
        'host.v1',
        'intercept.v1',
      ]);
      assert.deepEqual(Object.keys(await listed('configTypes=all')).sort(), ['host.v1', 'intercept.v1']);
      assert.deepEqual(await listed('configTypes=no-such-type'), {}, 'unknown types are ignored');
      assert.deepEqual(Object.keys((await get(`/services/${svc}`, 'configTypes=all')).data.config).sort(), [
        'host.v1',
        'intercept.v1',
      ]);
    });

    it('the config types of the API session apply when the request names none', async () => {
      const i = await config(INTERCEPT, intercept('session.internal'));
      const svc = await newService({ configs: [i] });
      const password = 'Session-types-1';
      const who = await created('/identities', { name: fresh('session-admin'), type: 'User', isAdmin: true });
      await created('/authenticators', { method: 'updb', identityId: who, username: fresh('session-admin'), password });
      const username = (await get(`/identities/${who}/authenticators`)).data[0].username;
      const login = await t.anonymous.request('POST', '/edge/client/v1/authenticate', {
        query: 'method=password',
        json: { username, password, configTypes: ['intercept.v1'] },
      });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      const res = await t.app.inject({
        method: 'GET',
        url: `/edge/management/v1/services/${svc}`,
        headers: { 'zt-session': login.body.data.token },
      });
      assert.deepEqual(JSON.parse(res.body).data.config, { 'intercept.v1': intercept('session.internal') });
    });

    it('serves permissions and postureQueries as Swagger requires; a provider decides the permissions', async () => {
      const svc = await newService();
      const read = (await get(`/services/${svc}`)).data;
      assert.deepEqual(read.permissions, ['Invalid'], 'the reading admin has no policy for it: neither Dial nor Bind');
      assert.deepEqual(read.postureQueries, []);
      const rt = t.app.runtime;
      const row = await rt.store.repo('service').get(svc);
      const me = 'identity-1';
      const provider = {
        permissions: async (_rt: unknown, identityId: string, ids: readonly string[]) =>
          new Map(ids.map((id) => [id, identityId === me ? (['Dial', 'Bind'] as const) : ([] as const)])),
        accessible: async () => ({ ids: [svc] }),
      };
      const [granted] = await servicePresenter(provider)([row], rt, { identityId: me });
      assert.deepEqual(granted.permissions, ['Dial', 'Bind']);
      assert.deepEqual(granted.postureQueries, [
        {
          policyId: 'dummy dial policy: no posture checks defined',
          policyType: 'Dial',
          isPassing: true,
          postureQueries: [],
        },
        {
          policyId: 'dummy bind policy: no posture checks defined',
          policyType: 'Bind',
          isPassing: true,
          postureQueries: [],
        },
      ]);
      const [denied] = await servicePresenter(provider)([row], rt, { identityId: 'someone-else' });
      assert.deepEqual(denied.permissions, ['Invalid'], 'as OpenZiti serves an identity with neither');
      validateResponse('management', 'GET', `/services/${svc}`, 200, { data: granted, meta: {} });
      validateResponse('management', 'GET', `/services/${svc}`, 200, { data: denied, meta: {} });
    });

    describe('identity service-config overrides', () => {
      let identity: string;
      let svc: string;
      let serviceIntercept: string;
      before(async () => {
        identity = await created('/identities', { name: fresh('overridden'), type: 'Device', isAdmin: false });
        serviceIntercept = await config(INTERCEPT, intercept('shared.internal'));
        svc = await newService({ configs: [serviceIntercept] });
      });

      it('the identity links to them; associate, list (as Swagger says), replace within a type, remove', async () => {
        const links = (await get(`/identities/${identity}`)).data._links;
        assert.equal(links['service-configs'].href, `./identities/${identity}/service-configs`);
        const mine = await config(INTERCEPT, intercept('mine.internal'), fresh('mine'));
        const path = `/identities/${identity}/service-configs`;
        assert.equal((await t.admin.request('POST', path, { json: [{ serviceId: svc, configId: mine }] })).status, 200);
        const listed = (await get(path)).data;
        assert.equal(listed.length, 1);
        assert.equal(listed[0].serviceId, svc);
        assert.equal(listed[0].configId, mine);
        assert.match(listed[0].config.name, /^mine-/);
        assert.equal(listed[0].service.id, svc);

        const other = await config(INTERCEPT, intercept('other.internal'));
        const hostOverride = await config(HOST, host);
        const both = await t.admin.request('POST', path, {
          json: [
            { serviceId: svc, configId: other },
            { serviceId: svc, configId: hostOverride },
          ],
        });
        assert.equal(both.status, 200, JSON.stringify(both.body));
        assert.deepEqual(
          new Set((await get(path)).data.map((o: { configId: string }) => o.configId)),
          new Set([other, hostOverride]),
          'one per type: the later intercept replaced',
        );

        const removed = await t.admin.request('DELETE', path, { json: [{ serviceId: svc, configId: other }] });
        assert.equal(removed.status, 200);
        assert.deepEqual(
          (await get(path)).data.map((o: { configId: string }) => o.configId),
          [hostOverride],
        );
        const empty = await t.admin.request('DELETE', path);
        assert.equal(empty.status, 200, 'an empty body removes nothing, as in OpenZiti');
        assert.equal((await get(path)).data.length, 1);
      });

      it('stand in for the service config of their type, for that identity only', async () => {
        const mine = await config(INTERCEPT, intercept('only-mine.internal'));
        const path = `/identities/${identity}/service-configs`;
        await t.admin.request('POST', path, { json: [{ serviceId: svc, configId: mine }] });
        const q = `filter=${encodeURIComponent(`id = "${svc}"`)}&configTypes=intercept.v1`;
        assert.deepEqual(
          (await get('/services', `${q}&asIdentity=${identity}`)).data[0].config['intercept.v1'],
          intercept('only-mine.internal'),
        );
        assert.deepEqual(
          (await get('/services', q)).data[0].config['intercept.v1'],
          intercept('shared.internal'),
          'the caller has no override',
        );
        const byName = (await get(`/identities/${identity}`)).data.name;
        assert.deepEqual(
          (await get('/services', `${q}&asIdentity=${byName}`)).data[0].config['intercept.v1'],
          intercept('only-mine.internal'),
        );
        const unknown = await t.admin.request('GET', '/services', { query: 'asIdentity=nobody-here' });
        assert.equal(unknown.status, 404);
      });

      it('refuses: unknown service or config (400, named), non-service config type, unknown identity 404', async () => {
        const path = `/identities/${identity}/service-configs`;
        const link = await config('router.link.v1', {});
        const cases: [unknown, string][] = [
          [[{ serviceId: 'no-such-service', configId: serviceIntercept }], 'serviceId'],
          [[{ serviceId: svc, configId: 'no-such-config' }], 'configId'],
          [[{ serviceId: svc, configId: link }], 'configId'],
          [[{ serviceId: svc }], '0.configId'],
          [{ serviceId: svc, configId: serviceIntercept }, 'body'],
        ];
        for (const [json, field] of cases) {
          const res = await t.admin.request('POST', path, { json });
          assert.equal(res.status, 400, JSON.stringify(res.body));
          assert.equal(res.body.error.cause.field, field);
        }
        const res = await t.admin.request('POST', '/identities/no-such-identity/service-configs', { json: [] });
        assert.equal(res.status, 404);
      });

      it('a config in use cannot go (409 naming configId); the identity or service going drops them', async () => {
        const who = await created('/identities', { name: fresh('short-lived'), type: 'Device', isAdmin: false });
        const service2 = await newService();
        const mine = await config(INTERCEPT, intercept('in-use.internal'));
        const path = `/identities/${who}/service-configs`;
        await t.admin.request('POST', path, {
          json: [
            { serviceId: svc, configId: mine },
            { serviceId: service2, configId: mine },
          ],
        });
        const refused = await t.admin.request('DELETE', `/configs/${mine}`);
        assert.equal(refused.status, 409);
        assert.equal(refused.body.error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
        assert.equal(refused.body.error.cause.field, 'configId');
        assert.equal((await t.admin.request('DELETE', `/services/${service2}`)).status, 200);
        assert.deepEqual(
          (await get(path)).data.map((o: { serviceId: string }) => o.serviceId),
          [svc],
        );
        assert.equal((await t.admin.request('DELETE', `/identities/${who}`)).status, 200);
        assert.equal(
          (await t.admin.request('DELETE', `/configs/${mine}`)).status,
          200,
          'no override holds it any more',
        );
      });
    });
  });
}
