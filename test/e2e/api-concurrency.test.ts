// Concurrent writers over HTTPS: several clients at once create, change and delete identities, services and
// service policies over a few shared attributes, so that writes changing what a policy selects race each other.
// Afterwards the integrity check finds nothing, and every access list equals what the brute-force evaluator
// (test/helpers/policy-model.ts) says of the stored roles and attributes. No answer may be a 5xx (the helper
// asserts that on every response); a write that lost its target to another client's delete is a 4xx.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { type HttpHelper, unique, useTestController } from '../helpers/controller.js';
import { type Entity, type Policy, reachable, selecting } from '../helpers/policy-model.js';

const CLIENTS = 6;
const ATTRIBUTES = ['t', 'u', 'v'];

const attributes = fc.subarray(ATTRIBUTES, { maxLength: 2 });
/** A role set: attributes, ids of entities that exist when the operation runs (by index), or `#all` now and then. */
const roles = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ attrs: ['all'], ids: [] as number[] }) },
  {
    weight: 6,
    arbitrary: fc.record({
      attrs: fc.subarray(ATTRIBUTES, { minLength: 1, maxLength: 2 }),
      ids: fc.array(fc.nat(), { maxLength: 1 }),
    }),
  },
);
const semantic = fc.constantFrom('AllOf' as const, 'AnyOf' as const);
const named = <T extends string>(name: T) => fc.constant(name);

const kind = fc.constantFrom('identities' as const, 'services' as const, 'service-policies' as const);
const operation = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('create-identity' as const), attributes }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('create-service' as const), attributes }) },
  {
    weight: 3,
    arbitrary: fc.record({ op: named('create-policy'), semantic, identityRoles: roles, serviceRoles: roles }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('relabel-identity' as const), which: fc.nat(), attributes }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('relabel-service' as const), which: fc.nat(), attributes }) },
  {
    weight: 3,
    arbitrary: fc.record({ op: named('rewrite-policy'), which: fc.nat(), semantic, identityRoles: roles }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), kind, which: fc.nat() }) },
);
type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;

/** Ids made by this run, per collection; each client picks among them as it goes (others may delete them). */
type Made = Record<'identities' | 'services' | 'service-policies', string[]>;

const at = (list: readonly string[], n: number) => (list.length ? list[n % list.length] : 'missing');

type RoleSpec = { readonly attrs: readonly string[]; readonly ids: readonly number[] };

function roleSet(spec: RoleSpec, of: readonly string[]): string[] {
  return [...spec.attrs.map((a) => `#${a}`), ...spec.ids.filter(() => of.length > 0).map((n) => `@${at(of, n)}`)];
}

/** Runs one operation; the answer must be a success, or a 4xx when another client deleted what it names. */
async function apply(api: HttpHelper, made: Made, op: Operation): Promise<void> {
  const expectOk = (status: number, what: string) => {
    assert.ok(status < 300 || status === 404 || status === 400, `${what}: ${status}`);
  };
  switch (op.op) {
    case 'create-identity': {
      const body = { name: unique('ci'), type: 'User', isAdmin: false, roleAttributes: op.attributes };
      const res = await api.post('/identities', body);
      assert.equal(res.status, 201, res.text);
      made.identities.push(res.body.data.id);
      return;
    }
    case 'create-service': {
      const body = { name: unique('cs'), roleAttributes: op.attributes, encryptionRequired: true };
      const res = await api.post('/services', body);
      assert.equal(res.status, 201, res.text);
      made.services.push(res.body.data.id);
      return;
    }
    case 'create-policy': {
      const body = {
        name: unique('cp'),
        type: 'Dial',
        semantic: op.semantic,
        identityRoles: roleSet(op.identityRoles, made.identities),
        serviceRoles: roleSet(op.serviceRoles, made.services),
      };
      const res = await api.post('/service-policies', body);
      // An @id that another client deleted meanwhile is refused (400): the policy is not made.
      expectOk(res.status, 'create policy');
      if (res.status === 201) made['service-policies'].push(res.body.data.id);
      return;
    }
    case 'relabel-identity': {
      const res = await api.patch(`/identities/${at(made.identities, op.which)}`, { roleAttributes: op.attributes });
      return expectOk(res.status, 'relabel identity');
    }
    case 'relabel-service': {
      const res = await api.patch(`/services/${at(made.services, op.which)}`, { roleAttributes: op.attributes });
      return expectOk(res.status, 'relabel service');
    }
    case 'rewrite-policy': {
      const body = { semantic: op.semantic, identityRoles: roleSet(op.identityRoles, made.identities) };
      const res = await api.patch(`/service-policies/${at(made['service-policies'], op.which)}`, body);
      return expectOk(res.status, 'rewrite policy');
    }
    case 'delete': {
      const list = made[op.kind];
      const id = at(list, op.which);
      expectOk((await api.delete(`/${op.kind}/${id}`)).status, `delete ${op.kind}`);
      // Two clients may delete the same entity: the second gets 404, and the id is already gone from the list.
      if (list.includes(id)) list.splice(list.indexOf(id), 1);
    }
  }
}

async function all(api: HttpHelper, path: string): Promise<any[]> {
  const res = await api.get(path, { query: { limit: -1 } });
  assert.equal(res.status, 200, `${path}: ${res.text}`);
  return res.body.data;
}

const idsOf = async (api: HttpHelper, path: string) => (await all(api, path)).map((e: { id: string }) => e.id).sort();

/** Runs the integrity check and returns what it found. */
async function integrityIssues(api: HttpHelper): Promise<unknown[]> {
  assert.equal((await api.post('/database/check-data-integrity')).status, 202);
  for (;;) {
    const res = await api.get('/database/data-integrity-results');
    if (!res.body.data.inProgress) return res.body.data.results;
    await sleep(50);
  }
}

/** Every access list the controller serves for this run's entities, against the evaluator over what is stored. */
async function assertAccessExact(api: HttpHelper): Promise<void> {
  const entity = (e: { id: string; roleAttributes: string[] | null }): Entity => {
    return { id: e.id, attributes: e.roleAttributes ?? [] };
  };
  const identities = (await all(api, '/identities')).map(entity);
  const services = (await all(api, '/services')).map(entity);
  const policies: Policy[] = (await all(api, '/service-policies')).map((p) => ({
    id: p.id,
    semantic: p.semantic,
    type: p.type,
    roles: { identityRoles: p.identityRoles, serviceRoles: p.serviceRoles },
  }));
  for (const identity of identities) {
    const { id } = identity;
    const selectingIt = selecting(policies, 'identityRoles', identity);
    assert.deepEqual(await idsOf(api, `/identities/${id}/service-policies`), selectingIt, `policies of ${id}`);
    const reached = reachable(policies, 'identityRoles', 'serviceRoles', identity, services);
    assert.deepEqual(await idsOf(api, `/identities/${id}/services`), reached, `services of ${id}`);
  }
  for (const service of services) {
    const { id } = service;
    const selectingIt = selecting(policies, 'serviceRoles', service);
    assert.deepEqual(await idsOf(api, `/services/${id}/service-policies`), selectingIt, `policies of ${id}`);
  }
  for (const policy of policies) {
    const selected = identities
      .filter((e) => selecting([policy], 'identityRoles', e).length)
      .map((e) => e.id)
      .sort();
    const got = await idsOf(api, `/service-policies/${policy.id}/identities`);
    assert.deepEqual(got, selected, `identities of ${policy.id}`);
  }
}

/** What each client does, in order; the clients run at once. */
const clientsOperations = fc.array(fc.array(operation, { minLength: 8, maxLength: 12 }), {
  minLength: CLIENTS,
  maxLength: CLIENTS,
});

describe('concurrent writers keep the access index exact', () => {
  const fixture = useTestController();

  it('random creates, updates and deletes from several clients at once', async () => {
    const api = fixture.admin;
    await fc.assert(
      fc.asyncProperty(clientsOperations, async (clients) => {
        const made: Made = { identities: [], services: [], 'service-policies': [] };
        await Promise.all(
          clients.map(async (ops) => {
            for (const op of ops) await apply(api, made, op);
          }),
        );
        assert.deepEqual(await integrityIssues(api), [], 'the integrity check finds nothing');
        await assertAccessExact(api);
      }),
      // The network is shared by every run and the clients interleave differently each time: shrinking would mislead.
      { numRuns: 4, endOnFailure: true, includeErrorInReport: true },
    );
  });
});
