// What configs do beyond the generic contract: data checked against the type's schema (the error names the
// failing path), schemas that must compile, a type that cannot go while configs use it, and the built-in types
// with their schemas, checked against configs as real tunnelers are given them. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';
import { validateResponse } from '../helpers/spec.js';

const PORTS = {
  type: 'object',
  properties: { hostname: { type: 'string' }, port: { type: 'integer', minimum: 1, maximum: 65535 } },
  required: ['hostname', 'port'],
  additionalProperties: false,
};

const BUILT_IN_NAMES = new Set([
  'ziti-tunneler-client.v1',
  'ziti-tunneler-server.v1',
  'intercept.v1',
  'host.v1',
  'host.v2',
  'interfaces.v1',
  'proxy.v1',
  'router.link.v1',
]);

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
      const res = await t.admin.request('POST', '/configs', {
        json: { name: 'web', configTypeId: typeId, data: { hostname: 'web.internal', port: 443 } },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const config = (await t.admin.request('GET', `/configs/${res.body.data.id}`)).body.data;
      assert.deepEqual(config.data, { hostname: 'web.internal', port: 443 });
      assert.equal(config.configType.name, 'tunneler.v1');
      const listed = await t.admin.request('GET', `/config-types/${typeId}/configs`);
      assert.deepEqual(
        listed.body.data.map((c: { name: string }) => c.name),
        ['web'],
      );
    });

    it("filters by OpenZiti's type symbol, and by the type's own symbols through it (type.name)", async () => {
      const hostType = await t.admin.request('GET', `/config-types?filter=${encodeURIComponent('name = "host.v1"')}`);
      const configTypeId = hostType.body.data[0].id;
      const data = { protocol: 'tcp', address: 'localhost', port: 80 };
      const other = await t.admin.request('POST', '/configs', { json: { name: 'other-type', configTypeId, data } });
      assert.equal(other.status, 201, JSON.stringify(other.body));
      const names = async (filter: string) => {
        const res = await t.admin.request('GET', `/configs?filter=${encodeURIComponent(filter)}`);
        assert.equal(res.status, 200, `${filter}: ${JSON.stringify(res.body)}`);
        return (res.body.data as { name: string }[]).map((c) => c.name);
      };
      assert.deepEqual(await names(`type = "${typeId}"`), ['web']);
      assert.deepEqual(await names('type.name = "tunneler.v1"'), ['web']);
      assert.deepEqual(await names('configType.name = "host.v1"'), ['other-type']);
      const bothSorted = 'type.name in ["tunneler.v1", "host.v1"] sort by type.name desc';
      assert.deepEqual(await names(bothSorted), ['web', 'other-type']);
      const listed = await t.admin.request('GET', '/configs');
      assert.ok(listed.body.meta.filterableFields.includes('type'), JSON.stringify(listed.body.meta));
      const unknown = await t.admin.request('GET', `/configs?filter=${encodeURIComponent('type.nope = "x"')}`);
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.error.code, 'INVALID_FILTER');
      assert.equal(unknown.body.error.cause.message, "unknown symbol 'type.nope'");
      assert.equal((await t.admin.request('DELETE', `/configs/${other.body.data.id}`)).status, 200);
    });

    it('refuses data that fails the schema, naming the failing path, on create and on patch', async () => {
      const bad = await t.admin.request('POST', '/configs', {
        json: { name: 'bad', configTypeId: typeId, data: { hostname: 'x', port: 70000 } },
      });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.code, 'COULD_NOT_VALIDATE');
      assert.equal(bad.body.error.cause.field, 'data.port');
      const ok = await t.admin.request('POST', '/configs', {
        json: { name: 'ok', configTypeId: typeId, data: { hostname: 'x', port: 80 } },
      });
      const patched = await t.admin.request('PATCH', `/configs/${ok.body.data.id}`, {
        json: { data: { hostname: 'x' } },
      });
      assert.equal(patched.status, 400);
      assert.equal(patched.body.error.cause.field, 'data.port', 'the missing property is named');
      assert.deepEqual(
        (await t.admin.request('GET', `/configs/${ok.body.data.id}`)).body.data.data,
        { hostname: 'x', port: 80 },
        'unchanged',
      );
    });

    it('refuses a config type whose schema does not compile', async () => {
      const res = await t.admin.request('POST', '/config-types', {
        json: { name: 'broken', schema: { type: 'no-such-type' } },
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.cause.field, 'schema');
    });

    it('a type in use cannot be deleted (409 naming the field); once unused it can', async () => {
      const type = (await t.admin.request('POST', '/config-types', { json: { name: 'short-lived' } })).body.data.id;
      const config = (
        await t.admin.request('POST', '/configs', { json: { name: 'user-of-type', configTypeId: type, data: {} } })
      ).body.data.id;
      const refused = await t.admin.request('DELETE', `/config-types/${type}`);
      assert.equal(refused.status, 409);
      assert.equal(refused.body.error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
      assert.equal(refused.body.error.cause.field, 'configTypeId');
      // Named as a person knows them; the id of the type is the cause's value.
      assert.match(
        refused.body.error.message,
        /^the config type 'short-lived' is referenced by config 'user-of-type' \(field configTypeId\)/,
      );
      assert.deepEqual(refused.body.error.cause, {
        field: 'configTypeId',
        reason: "referenced by config 'user-of-type'",
        value: type,
      });
      const second = (
        await t.admin.request('POST', '/configs', { json: { name: 'second-user', configTypeId: type, data: {} } })
      ).body.data.id;
      const both = await t.admin.request('DELETE', `/config-types/${type}`);
      const holders = /is referenced by configs '(user-of-type|second-user)', '(user-of-type|second-user)' /.source;
      assert.match(
        both.body.error.message,
        new RegExp(holders + /\(field configTypeId\); remove those references first$/.source),
      );
      assert.equal((await t.admin.request('DELETE', `/configs/${second}`)).status, 200);
      assert.equal((await t.admin.request('DELETE', `/configs/${config}`)).status, 200);
      assert.equal((await t.admin.request('DELETE', `/config-types/${type}`)).status, 200);
    });

    it('a changed schema applies to the next write', async () => {
      const type = (
        await t.admin.request('POST', '/config-types', { json: { name: 'evolving', schema: { type: 'object' } } })
      ).body.data.id;
      const config = (
        await t.admin.request('POST', '/configs', { json: { name: 'evolving-1', configTypeId: type, data: { a: 1 } } })
      ).body.data.id;
      assert.equal(
        (
          await t.admin.request('PATCH', `/config-types/${type}`, {
            json: { schema: { type: 'object', required: ['b'] } },
          })
        ).status,
        200,
      );
      const res = await t.admin.request('PATCH', `/configs/${config}`, { json: { data: { a: 2 } } });
      assert.equal(res.status, 400, JSON.stringify(res.body));
    });

    it('has the built-in types from the first start, with their ids and targets, listed as Swagger says', async () => {
      const res = await t.admin.request('GET', '/config-types', { query: 'limit=100' });
      validateResponse('management', 'GET', '/config-types', res.status, res.body);
      const builtIn = res.body.data.filter((c: { name: string }) => BUILT_IN_NAMES.has(c.name));
      assert.deepEqual(
        Object.fromEntries(
          builtIn.map((c: { name: string; id: string; target: string }) => [c.name, [c.id, c.target]]),
        ),
        {
          'ziti-tunneler-client.v1': ['f2dd2df0-9c04-4b84-a91e-71437ac229f1', 'service'],
          'ziti-tunneler-server.v1': ['cea49285-6c07-42cf-9f52-09a9b115c783', 'service'],
          'intercept.v1': ['g7cIWbcGg', 'service'],
          'host.v1': ['NH5p4FpGR', 'service'],
          'host.v2': ['host.v2', 'service'],
          'interfaces.v1': ['interfaces.v1', 'service'],
          'proxy.v1': ['proxy.v1', 'service'],
          'router.link.v1': ['router.link.v1', 'router'],
        },
      );
    });

    it('built-in types can be neither changed nor deleted', async () => {
      const patched = await t.admin.request('PATCH', '/config-types/g7cIWbcGg', { json: { schema: {} } });
      assert.equal(patched.status, 400);
      assert.equal(patched.body.error.code, 'ENTITY_CAN_NOT_BE_UPDATED');
      const deleted = await t.admin.request('DELETE', '/config-types/host.v2');
      assert.equal(deleted.status, 400);
      assert.equal(deleted.body.error.code, 'ENTITY_CAN_NOT_BE_DELETED');
    });

    it("a type's target is set at creation only", async () => {
      const res = await t.admin.request('POST', '/config-types', { json: { name: 'router-thing', target: 'router' } });
      assert.equal(res.status, 201);
      const patched = await t.admin.request('PATCH', `/config-types/${res.body.data.id}`, {
        json: { target: 'service' },
      });
      assert.equal(patched.status, 400);
      assert.equal(patched.body.error.cause.field, 'target');
      const put = await t.admin.request('PUT', `/config-types/${res.body.data.id}`, { json: { name: 'router-thing' } });
      assert.equal(put.status, 200);
      assert.equal(
        (await t.admin.request('GET', `/config-types/${res.body.data.id}`)).body.data.target,
        'router',
        'a replace keeps it',
      );
    });

    it('refuses a target the Swagger document does not list, creating nothing', async () => {
      const res = await t.admin.request('POST', '/config-types', { json: { name: 'odd-target', target: 'other' } });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.cause.field, 'target');
      const listed = await t.admin.request('GET', `/config-types?filter=${encodeURIComponent('name = "odd-target"')}`);
      assert.equal(listed.body.meta.pagination.totalCount, 0);
    });

    let made = 0;
    const create = (configTypeId: string, data: unknown) =>
      t.admin.request('POST', '/configs', { json: { name: `builtin-${++made}`, configTypeId, data } });

    it('the built-in schemas accept configs as tunnelers are given them', async () => {
      const good: [string, unknown][] = [
        [
          'intercept.v1',
          {
            protocols: ['tcp', 'udp'],
            addresses: ['web.ziti', '*.internal.example', '10.0.0.0/24'],
            portRanges: [
              { low: 80, high: 80 },
              { low: 8000, high: 8100 },
            ],
          },
        ],
        [
          'intercept.v1',
          {
            protocols: ['tcp'],
            addresses: ['db.ziti'],
            portRanges: [{ low: 5432, high: 5432 }],
            dialOptions: { identity: '$dst_ip', connectTimeoutSeconds: 10 },
            sourceIp: '$tunneler_id.name',
            allowedSourceAddresses: ['192.168.1.0/24'],
          },
        ],
        ['host.v1', { protocol: 'tcp', address: 'localhost', port: 80 }],
        [
          'host.v1',
          {
            forwardProtocol: true,
            allowedProtocols: ['tcp', 'udp'],
            forwardAddress: true,
            allowedAddresses: ['10.0.0.0/8'],
            forwardPort: true,
            allowedPortRanges: [{ low: 1, high: 65535 }],
            listenOptions: {
              bindUsingEdgeIdentity: true,
              precedence: 'required',
              cost: 10,
              connectTimeout: '5s',
              maxConnections: 10,
            },
          },
        ],
        [
          'host.v1',
          {
            protocol: 'tcp',
            address: 'web',
            port: 443,
            httpChecks: [
              {
                url: 'https://web/health',
                interval: '5s',
                timeout: '1s',
                method: 'GET',
                expectStatus: 200,
                actions: [
                  { trigger: 'fail', consecutiveEvents: 3, action: 'mark unhealthy' },
                  { trigger: 'pass', action: 'increase cost 10', duration: '1m30s' },
                ],
              },
            ],
            portChecks: [{ address: 'web:443', interval: '10s', timeout: '500ms' }],
          },
        ],
        [
          'host.v2',
          {
            terminators: [
              { protocol: 'tcp', address: 'a', port: 1 },
              { protocol: 'udp', address: 'b', port: 53, listenOptions: { identity: '$tunneler_id.name' } },
            ],
          },
        ],
        ['ziti-tunneler-client.v1', { hostname: 'web.ziti', port: 80 }],
        ['ziti-tunneler-server.v1', { hostname: 'localhost', port: 8080, protocol: 'tcp' }],
        ['interfaces.v1', { interfaces: ['eth0'] }],
        ['proxy.v1', { port: 8080, protocols: ['tcp'], binding: 'edge' }],
        [
          'router.link.v1',
          {
            listeners: [
              { binding: 'transport', bind: 'tls:0.0.0.0:6262', advertise: 'tls:router:6262', groups: ['default'] },
            ],
            dialers: [{ binding: 'transport', groups: 'default' }],
            heartbeats: { sendInterval: '10s' },
            gcMode: 'orphaned',
          },
        ],
      ];
      const ids = await typeIds();
      for (const [type, data] of good) {
        const res = await create(ids.get(type)!, data);
        assert.equal(res.status, 201, `${type} ${JSON.stringify(data)}: ${JSON.stringify(res.body)}`);
      }
    });

    it('the built-in schemas refuse what OpenZiti refuses, naming the path', async () => {
      const bad: [string, unknown, string][] = [
        ['intercept.v1', { protocols: ['tcp'], addresses: ['a'] }, 'data.portRanges'],
        [
          'intercept.v1',
          { protocols: ['icmp'], addresses: ['a'], portRanges: [{ low: 1, high: 1 }] },
          'data.protocols.0',
        ],
        [
          'intercept.v1',
          { protocols: ['tcp'], addresses: ['a'], portRanges: [{ low: 1, high: 70000 }] },
          'data.portRanges.0.high',
        ],
        [
          'intercept.v1',
          { protocols: ['tcp'], addresses: [''], portRanges: [{ low: 1, high: 1 }] },
          'data.addresses.0',
        ],
        ['intercept.v1', { protocols: [], addresses: ['a'], portRanges: [{ low: 1, high: 1 }] }, 'data.protocols'],
        [
          'intercept.v1',
          { protocols: ['tcp'], addresses: ['a'], portRanges: [{ low: 1, high: 1 }], extra: true },
          'data.extra',
        ],
        ['host.v1', { address: 'a', port: 1 }, 'data.protocol'],
        ['host.v1', { forwardProtocol: true, address: 'a', port: 1 }, 'data.allowedProtocols'],
        ['host.v1', { protocol: 'tcp', address: 'a', port: -1 }, 'data.port'],
        [
          'host.v1',
          { protocol: 'tcp', address: 'a', port: 1, listenOptions: { precedence: 'sometimes' } },
          'data.listenOptions.precedence',
        ],
        [
          'host.v1',
          {
            protocol: 'tcp',
            address: 'a',
            port: 1,
            portChecks: [{ address: 'a:1', interval: 'often', timeout: '1s' }],
          },
          'data.portChecks.0.interval',
        ],
        ['host.v2', { terminators: [] }, 'data.terminators'],
        ['ziti-tunneler-client.v1', { hostname: 'a' }, 'data.port'],
        ['proxy.v1', { port: 0, protocols: ['tcp'] }, 'data.port'],
        ['interfaces.v1', {}, 'data.interfaces'],
        ['router.link.v1', { listeners: [{ advertise: 'x' }] }, 'data.listeners.0.bind'],
      ];
      const ids = await typeIds();
      for (const [type, data, field] of bad) {
        const res = await create(ids.get(type)!, data);
        assert.equal(res.status, 400, `${type} ${JSON.stringify(data)} was accepted`);
        assert.equal(
          res.body.error.cause.field,
          field,
          `${type} ${JSON.stringify(data)}: ${JSON.stringify(res.body.error.cause)}`,
        );
      }
    });

    it('schemas carrying an $id (as OpenZiti exports them) can be used by several types and edited', async () => {
      const schema = { $id: 'http://example.test/schemas/x.json', type: 'object', required: ['x'] };
      const a = (await t.admin.request('POST', '/config-types', { json: { name: 'with-id-a', schema } })).body.data.id;
      const b = (await t.admin.request('POST', '/config-types', { json: { name: 'with-id-b', schema } })).body.data.id;
      assert.equal((await create(a, { x: 1 })).status, 201);
      assert.equal((await create(b, { x: 1 })).status, 201);
      assert.equal(
        (await t.admin.request('PATCH', `/config-types/${a}`, { json: { schema: { ...schema, required: ['y'] } } }))
          .status,
        200,
      );
      assert.equal((await create(a, { x: 1 })).status, 400);
    });

    async function typeIds(): Promise<Map<string, string>> {
      const res = await t.admin.request('GET', '/config-types', { query: 'limit=100' });
      return new Map(res.body.data.map((c: { name: string; id: string }) => [c.name, c.id]));
    }
  });
}
