// Access decisions against an independent brute-force evaluator (test/helpers/policy-model.ts), on random networks
// built through the API and then changed (attributes, roles, semantics, deletions): every relation list the
// access index serves must say what the naive rules say. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createTestApp, type Client, type TestApp } from '../helpers/in-process.js';
import { type Entity, type Policy, reachable, selecting } from '../helpers/policy-model.js';
import { storesUnderTest } from '../helpers/postgres.js';

const ATTRIBUTES = ['red', 'green', 'blue', 'gold'];

/** A role set drawn over `count` entities: `#all` alone, or attributes and `@` indexes (resolved to ids later). */
const roleSet = (count: number) =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constant<string[]>(['#all']) },
    {
      weight: 5,
      arbitrary: fc
        .tuple(
          fc.subarray(
            ATTRIBUTES.map((a) => `#${a}`),
            { maxLength: 3 },
          ),
          fc.subarray(
            [...Array(count).keys()].map((i) => `@${i}`),
            { maxLength: Math.min(2, count) },
          ),
        )
        .map(([attrs, ids]) => [...attrs, ...ids]),
    },
  );

const attributes = fc.subarray(ATTRIBUTES, { maxLength: 3 });
const semantic = fc.constantFrom('AllOf' as const, 'AnyOf' as const);

const network = fc
  .record({
    identities: fc.integer({ min: 1, max: 5 }),
    services: fc.integer({ min: 1, max: 5 }),
    routers: fc.integer({ min: 1, max: 4 }),
  })
  .chain((n) =>
    fc.record({
      identities: fc.array(attributes, { minLength: n.identities, maxLength: n.identities }),
      services: fc.array(attributes, { minLength: n.services, maxLength: n.services }),
      routers: fc.array(attributes, { minLength: n.routers, maxLength: n.routers }),
      servicePolicies: fc.array(
        fc.record({
          type: fc.constantFrom('Dial' as const, 'Bind' as const),
          semantic,
          identityRoles: roleSet(n.identities),
          serviceRoles: roleSet(n.services),
        }),
        { maxLength: 5 },
      ),
      routerPolicies: fc.array(
        fc.record({ semantic, identityRoles: roleSet(n.identities), edgeRouterRoles: roleSet(n.routers) }),
        { maxLength: 3 },
      ),
      servingPolicies: fc.array(
        fc.record({ semantic, serviceRoles: roleSet(n.services), edgeRouterRoles: roleSet(n.routers) }),
        { maxLength: 3 },
      ),
      // Changes after creation: new attributes for an identity, a policy's roles and semantic, a deleted service.
      relabel: fc.option(fc.tuple(fc.nat(), attributes)),
      rewrite: fc.option(fc.tuple(fc.nat(), semantic, roleSet(n.services))),
      deleteService: fc.option(fc.nat()),
    }),
  );

type Network = typeof network extends fc.Arbitrary<infer T> ? T : never;

async function create(c: Client, path: string, body: Record<string, unknown>): Promise<string> {
  const res = await c.request('POST', path, { json: body });
  assert.equal(res.status, 201, `${path}: ${JSON.stringify(res.body)}`);
  return res.body.data.id;
}

async function ids(c: Client, path: string, query?: string): Promise<string[]> {
  const res = await c.request('GET', path, { query: query ? `${query}&limit=-1` : 'limit=-1' });
  assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
  // The total is counted by its own statement (over the access index alone where it can be): it must agree.
  const total = res.body.meta?.pagination?.totalCount;
  if (total !== undefined) assert.equal(total, res.body.data.length, `${path}: totalCount`);
  return res.body.data.map((e: { id: string }) => e.id).sort();
}

/** Builds the network through the API, applies its changes, and returns what the model needs to judge it. */
async function build(c: Client, net: Network, run: number) {
  const entities = async (path: string, attrs: string[][], extra: Record<string, unknown> = {}) => {
    const out: Entity[] = [];
    for (const [i, a] of attrs.entries())
      out.push({
        id: await create(c, path, { name: `r${run}-${path.slice(1)}-${i}`, roleAttributes: a, ...extra }),
        attributes: a,
      });
    return out;
  };
  const identities = await entities('/identities', net.identities, { type: 'User', isAdmin: false });
  const services = await entities('/services', net.services, { encryptionRequired: true });
  const routers = await entities('/edge-routers', net.routers);
  const resolve = (roles: string[], of: Entity[]) =>
    roles.map((r) => (r.startsWith('@') ? `@${of[Number(r.slice(1))].id}` : r));
  const policies = async (path: string, specs: Record<string, unknown>[], sets: Record<string, Entity[]>) => {
    const out: Policy[] = [];
    for (const [i, spec] of specs.entries()) {
      const roles = Object.fromEntries(
        Object.entries(sets).map(([field, of]) => [field, resolve(spec[field] as string[], of)]),
      );
      const body = {
        name: `r${run}-${path.slice(1)}-${i}`,
        semantic: spec.semantic,
        ...(spec.type ? { type: spec.type } : {}),
        ...roles,
      };
      out.push({
        id: await create(c, path, body),
        semantic: spec.semantic as Policy['semantic'],
        type: spec.type as Policy['type'],
        roles,
      });
    }
    return out;
  };
  const sp = await policies('/service-policies', net.servicePolicies, {
    identityRoles: identities,
    serviceRoles: services,
  });
  const erp = await policies('/edge-router-policies', net.routerPolicies, {
    identityRoles: identities,
    edgeRouterRoles: routers,
  });
  const serp = await policies('/service-edge-router-policies', net.servingPolicies, {
    serviceRoles: services,
    edgeRouterRoles: routers,
  });

  if (net.relabel) {
    const who = identities[net.relabel[0] % identities.length];
    assert.equal(
      (await c.request('PATCH', `/identities/${who.id}`, { json: { roleAttributes: net.relabel[1] } })).status,
      200,
    );
    who.attributes = net.relabel[1];
  }
  if (net.rewrite && sp.length) {
    const policy = sp[net.rewrite[0] % sp.length];
    const serviceRoles = resolve(net.rewrite[2], services);
    assert.equal(
      (await c.request('PATCH', `/service-policies/${policy.id}`, { json: { semantic: net.rewrite[1], serviceRoles } }))
        .status,
      200,
    );
    policy.semantic = net.rewrite[1];
    policy.roles.serviceRoles = serviceRoles;
  }
  if (net.deleteService !== null) {
    const [gone] = services.splice(net.deleteService % services.length, 1);
    assert.equal((await c.request('DELETE', `/services/${gone.id}`)).status, 200);
    // Deleting an entity takes its @id out of every role set (wire-protocol section 4).
    for (const p of [...sp, ...serp]) p.roles.serviceRoles = p.roles.serviceRoles.filter((r) => r !== `@${gone.id}`);
  }
  return { identities, services, routers, sp, erp, serp };
}

async function removeAll(c: Client, built: Awaited<ReturnType<typeof build>>) {
  for (const p of built.sp) await c.request('DELETE', `/service-policies/${p.id}`);
  for (const p of built.erp) await c.request('DELETE', `/edge-router-policies/${p.id}`);
  for (const p of built.serp) await c.request('DELETE', `/service-edge-router-policies/${p.id}`);
  for (const e of built.identities) await c.request('DELETE', `/identities/${e.id}`);
  for (const e of built.services) await c.request('DELETE', `/services/${e.id}`);
  for (const e of built.routers) await c.request('DELETE', `/edge-routers/${e.id}`);
}

for (const store of storesUnderTest()) {
  describe(`access decisions agree with the policy rules (${store})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(store);
    });
    after(async () => t?.close());

    it('on random networks, before and after changes', async () => {
      // The identities the test app starts with are selected by `#all` too: the model knows them as well.
      const bystanders: Entity[] = (await t.admin.request('GET', '/identities', { query: 'limit=-1' })).body.data.map(
        (e: { id: string; roleAttributes: string[] }) => ({
          id: e.id,
          attributes: e.roleAttributes ?? [],
        }),
      );
      let run = 0;
      await fc.assert(
        fc.asyncProperty(network, async (net) => {
          const c = t.admin;
          const built = await build(c, net, run++);
          const { services, routers, sp, erp, serp } = built;
          const identities = [...built.identities, ...bystanders];
          try {
            for (const identity of identities) {
              assert.deepEqual(
                await ids(c, `/identities/${identity.id}/services`),
                reachable(sp, 'identityRoles', 'serviceRoles', identity, services),
              );
              for (const type of ['Dial', 'Bind'] as const) {
                const got = await ids(c, `/identities/${identity.id}/services`, `policyType=${type.toLowerCase()}`);
                assert.deepEqual(
                  got,
                  reachable(sp, 'identityRoles', 'serviceRoles', identity, services, type),
                  `${type} services of ${identity.id}`,
                );
              }
              assert.deepEqual(
                await ids(c, `/identities/${identity.id}/edge-routers`),
                reachable(erp, 'identityRoles', 'edgeRouterRoles', identity, routers),
              );
              assert.deepEqual(
                await ids(c, `/identities/${identity.id}/service-policies`),
                selecting(sp, 'identityRoles', identity),
              );
            }
            for (const service of services) {
              assert.deepEqual(
                await ids(c, `/services/${service.id}/identities`),
                reachable(sp, 'serviceRoles', 'identityRoles', service, identities),
              );
              assert.deepEqual(
                await ids(c, `/services/${service.id}/edge-routers`),
                reachable(serp, 'serviceRoles', 'edgeRouterRoles', service, routers),
              );
            }
            for (const router of routers) {
              assert.deepEqual(
                await ids(c, `/edge-routers/${router.id}/identities`),
                reachable(erp, 'edgeRouterRoles', 'identityRoles', router, identities),
              );
              assert.deepEqual(
                await ids(c, `/edge-routers/${router.id}/services`),
                reachable(serp, 'edgeRouterRoles', 'serviceRoles', router, services),
              );
            }
            for (const policy of sp) {
              const selected = (field: string, of: Entity[]) =>
                of
                  .filter((e) => selecting([policy], field, e).length)
                  .map((e) => e.id)
                  .sort();
              assert.deepEqual(
                await ids(c, `/service-policies/${policy.id}/identities`),
                selected('identityRoles', identities),
              );
              assert.deepEqual(
                await ids(c, `/service-policies/${policy.id}/services`),
                selected('serviceRoles', services),
              );
            }
          } finally {
            await removeAll(c, built);
          }
        }),
        { numRuns: store === 'sqlite' ? 25 : 10 },
      );
    });

    it("serves an identity's own services with its permissions, its edge routers, and policy advice", async () => {
      const c = t.admin;
      const me = (await t.user.request('GET', '/edge/client/v1/current-identity')).body.data.id;
      assert.equal(
        (await c.request('PATCH', `/identities/${me}`, { json: { roleAttributes: ['sales'] } })).status,
        200,
      );
      const crm = await create(c, '/services', {
        name: 'crm',
        roleAttributes: ['sales-apps'],
        encryptionRequired: true,
      });
      const wiki = await create(c, '/services', { name: 'wiki', encryptionRequired: true });
      const hidden = await create(c, '/services', { name: 'payroll', encryptionRequired: true });
      await create(c, '/service-policies', {
        name: 'sales-dial',
        type: 'Dial',
        semantic: 'AllOf',
        identityRoles: ['#sales'],
        serviceRoles: ['#sales-apps', `@${wiki}`],
      });
      await create(c, '/service-policies', {
        name: 'sales-host-crm',
        type: 'Bind',
        semantic: 'AnyOf',
        identityRoles: [`@${me}`],
        serviceRoles: [`@${crm}`],
      });
      const near = await create(c, '/edge-routers', { name: 'near', roleAttributes: ['public'] });
      const far = await create(c, '/edge-routers', { name: 'far' });
      await create(c, '/edge-router-policies', {
        name: 'sales-routers',
        semantic: 'AnyOf',
        identityRoles: ['#sales'],
        edgeRouterRoles: ['#public'],
      });
      await create(c, '/service-edge-router-policies', {
        name: 'crm-routers',
        semantic: 'AnyOf',
        serviceRoles: [`@${crm}`],
        edgeRouterRoles: ['#all'],
      });

      const own = await t.user.request('GET', '/edge/client/v1/services', { query: 'sort=name' });
      assert.equal(own.status, 200);
      assert.deepEqual(
        own.body.data.map((s: { name: string; permissions: string[] }) => [s.name, s.permissions]),
        [
          ['crm', ['Bind', 'Dial']],
          ['wiki', ['Dial']],
        ],
      );
      assert.equal(own.body.meta.pagination.totalCount, 2);
      assert.deepEqual((await t.user.request('GET', `/edge/client/v1/services/${wiki}`)).body.data.permissions, [
        'Dial',
      ]);
      assert.equal(
        (await t.user.request('GET', `/edge/client/v1/services/${hidden}`)).status,
        404,
        'a service without access is not found',
      );
      const ownRouters = async () =>
        (await t.user.request('GET', '/edge/client/v1/current-identity/edge-routers')).body.data.map(
          (r: { id: string }) => r.id,
        );
      // A router that has not enrolled cannot accept the identity: not listed until it is verified.
      assert.deepEqual(await ownRouters(), []);
      await t.app.runtime.writes.update('edge-router', near, { isVerified: true }, new Date().toISOString());
      assert.deepEqual(await ownRouters(), [near]);
      // Admins are selected by no policy for this: they see every router, but, as in OpenZiti, only verified ones.
      const adminRouters = await c.request('GET', '/edge/client/v1/current-identity/edge-routers');
      const adminIds = adminRouters.body.data.map((r: { id: string }) => r.id);
      assert.ok(adminIds.includes(near), JSON.stringify(adminRouters.body));
      assert.ok(!adminIds.includes(far), 'a router that never enrolled is not listed, for admins either');

      const advice = (await c.request('GET', `/identities/${me}/policy-advice/${crm}`)).body.data;
      assert.equal(advice.isDialAllowed, true);
      assert.equal(advice.isBindAllowed, true);
      assert.equal(advice.identityRouterCount, 1);
      assert.deepEqual(
        advice.commonRouters.map((r: { id: string; isOnline: boolean }) => [r.id, r.isOnline]),
        [[near, false]],
      );
      const none = (await c.request('GET', `/identities/${me}/policy-advice/${hidden}`)).body.data;
      assert.deepEqual(
        [none.isDialAllowed, none.isBindAllowed, none.serviceRouterCount, none.commonRouters],
        [false, false, 0, []],
      );
      assert.equal((await c.request('GET', `/identities/${me}/policy-advice/nope`)).status, 404);
    });

    it('refuses a policyType that is neither dial nor bind, naming the parameter', async () => {
      const id = await create(t.admin, '/identities', { name: 'typed', type: 'User', isAdmin: false });
      const res = await t.admin.request('GET', `/identities/${id}/services`, { query: 'policyType=listen' });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.cause.field, 'policyType');
    });
  });
}
