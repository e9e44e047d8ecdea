// Three controllers serving one PostgreSQL database answer as one would. A fixed sequence of random writes (creates,
// attribute changes, policy rewrites and deletes of identities, services and service policies, with `#attr`, `@id`
// and `#all` roles) goes each to a random controller; after every step, every controller's access lists are compared
// with the brute-force evaluator (test/helpers/policy-model.ts) over what the test itself wrote. A controller that
// answered from older state than the last acknowledged write, on any of the three, fails the step.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  assertStatus,
  HttpHelper,
  startTestController,
  storeUnderTest,
  type TestController,
  unique,
} from '../helpers/controller.js';
import { type Entity, type Policy, reachable } from '../helpers/policy-model.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { writeTestKeyFile } from '../helpers/pki-key-file.js';

const CONTROLLERS = 3;
const STEPS = 60;
/** Fixed, so that a failure is the same sequence when run again. */
const SEED = 20_261_127;
const ATTRIBUTES = ['t', 'u', 'v'];

const attributes = fc.subarray(ATTRIBUTES, { maxLength: 2 });
const roles = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ attrs: ['all'], ids: [] as number[] }) },
  {
    weight: 6,
    arbitrary: fc.record({
      attrs: fc.subarray(ATTRIBUTES, { maxLength: 2 }),
      ids: fc.array(fc.nat(), { maxLength: 1 }),
    }),
  },
);
const semantic = fc.constantFrom('AllOf' as const, 'AnyOf' as const);
const kind = fc.constantFrom('identities' as const, 'services' as const, 'service-policies' as const);
const operation = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('create-identity' as const), attributes }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('create-service' as const), attributes }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('create-policy' as const),
      semantic,
      identityRoles: roles,
      serviceRoles: roles,
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('relabel-identity' as const), which: fc.nat(), attributes }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('relabel-service' as const), which: fc.nat(), attributes }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('rewrite-policy' as const),
      which: fc.nat(),
      semantic,
      serviceRoles: roles,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), kind, which: fc.nat() }) },
);
const step = fc.record({ on: fc.nat({ max: CONTROLLERS - 1 }), operation });
type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;
type RoleSpec = { readonly attrs: readonly string[]; readonly ids: readonly number[] };

/** What the test wrote and the controllers acknowledged: the only truth the answers are held to. */
class Network {
  identities = new Map<string, string[]>();
  services = new Map<string, string[]>();
  policies = new Map<string, Policy>();

  /** The n-th entry of a collection (wrapping), or undefined when it is empty. */
  pick<T>(of: Map<string, T>, n: number): string | undefined {
    const ids = [...of.keys()];
    return ids.length ? ids[n % ids.length] : undefined;
  }

  roleSet(spec: RoleSpec, of: Map<string, string[]>): string[] {
    const ids = spec.ids.map((n) => this.pick(of, n)).filter((id): id is string => id !== undefined);
    return [...spec.attrs.map((a) => `#${a}`), ...ids.map((id) => `@${id}`)];
  }

  entities(of: Map<string, string[]>): Entity[] {
    return [...of].map(([id, attrs]) => ({ id, attributes: attrs }));
  }
}

/** Sends one operation to `api` and records what it acknowledged. */
async function apply(api: HttpHelper, network: Network, op: Operation): Promise<string> {
  switch (op.op) {
    case 'create-identity': {
      const body = { name: unique('cr-i'), type: 'User', isAdmin: false, roleAttributes: op.attributes };
      const res = await api.post('/identities', body);
      assertStatus(res, 201, 'create identity');
      network.identities.set(res.body.data.id, op.attributes);
      return `create identity ${res.body.data.id} [${op.attributes}]`;
    }
    case 'create-service': {
      const res = await api.post('/services', {
        name: unique('cr-s'),
        roleAttributes: op.attributes,
        encryptionRequired: true,
      });
      assertStatus(res, 201, 'create service');
      network.services.set(res.body.data.id, op.attributes);
      return `create service ${res.body.data.id} [${op.attributes}]`;
    }
    case 'create-policy': {
      const policy = {
        semantic: op.semantic,
        type: 'Dial' as const,
        roles: {
          identityRoles: network.roleSet(op.identityRoles, network.identities),
          serviceRoles: network.roleSet(op.serviceRoles, network.services),
        },
      };
      const body = { name: unique('cr-p'), semantic: policy.semantic, type: policy.type, ...policy.roles };
      const res = await api.post('/service-policies', body);
      assertStatus(res, 201, 'create service policy');
      network.policies.set(res.body.data.id, { id: res.body.data.id, ...policy });
      return `create policy ${res.body.data.id} ${JSON.stringify(policy)}`;
    }
    case 'relabel-identity':
    case 'relabel-service': {
      const [collection, of] =
        op.op === 'relabel-identity'
          ? (['identities', network.identities] as const)
          : (['services', network.services] as const);
      const id = network.pick(of, op.which);
      if (!id) return `${op.op}: none yet`;
      assertStatus(await api.patch(`/${collection}/${id}`, { roleAttributes: op.attributes }), 200, op.op);
      of.set(id, op.attributes);
      return `${op.op} ${id} [${op.attributes}]`;
    }
    case 'rewrite-policy': {
      const id = network.pick(network.policies, op.which);
      if (!id) return 'rewrite policy: none yet';
      const serviceRoles = network.roleSet(op.serviceRoles, network.services);
      const res = await api.patch(`/service-policies/${id}`, { semantic: op.semantic, serviceRoles });
      assertStatus(res, 200, 'rewrite policy');
      const policy = network.policies.get(id)!;
      network.policies.set(id, { ...policy, semantic: op.semantic, roles: { ...policy.roles, serviceRoles } });
      return `rewrite policy ${id} ${op.semantic} [${serviceRoles}]`;
    }
    case 'delete': {
      const of = { identities: network.identities, services: network.services, 'service-policies': network.policies }[
        op.kind
      ];
      const id = network.pick<unknown>(of, op.which);
      if (!id) return `delete ${op.kind}: none yet`;
      assertStatus(await api.delete(`/${op.kind}/${id}`), 200, `delete ${op.kind}`);
      // A policy keeps an @id of a deleted entity or drops it: either way it selects nothing that exists.
      of.delete(id);
      return `delete ${op.kind} ${id}`;
    }
  }
}

const pgOnly = { skip: storeUnderTest() !== 'postgres' && 'PostgreSQL only' };

describe('three controllers on one database answer as one (random operations)', pgOnly, () => {
  let tmp: string;
  let database: TestDatabase;
  const running: TestController[] = [];

  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-cluster-random-'));
    const keyFile = await writeTestKeyFile(tmp);
    database = await createTestDatabase();
    for (let i = 0; i < CONTROLLERS; i++) {
      const ctl = await startTestController({
        dataDir: path.join(tmp, `c${i}`),
        storeUrl: database.url,
        pkiKeyFile: keyFile,
        sharedDatabase: true,
        ...(running[0] ? { adminPassword: running[0].adminPassword } : {}),
      });
      running.push(ctl);
    }
  });
  after(async () => {
    for (const ctl of running) await ctl.close();
    await database?.drop();
    await rm(tmp, { recursive: true, force: true });
  });

  it('after every write on a random controller, all three serve the access lists the evaluator gives', async () => {
    // One session, made on the first controller, used on all three: sessions are shared too.
    const token = (await running[0].admin()).token;
    const apis = running.map((ctl) => new HttpHelper(ctl.url, ctl.caPem, token));
    const steps = fc.sample(fc.array(step, { minLength: STEPS, maxLength: STEPS }), { seed: SEED, numRuns: 1 })[0];
    const network = new Network();
    const done: string[] = [];
    let granted = 0;
    for (const { on, operation } of steps) {
      done.push(`on ${on}: ${await apply(apis[on], network, operation)}`);
      const policies = [...network.policies.values()];
      const services = network.entities(network.services);
      for (const identity of network.entities(network.identities)) {
        const expected = reachable(policies, 'identityRoles', 'serviceRoles', identity, services);
        if (expected.length) granted++;
        for (const [n, api] of apis.entries()) {
          const res = await api.get(`/identities/${identity.id}/services`, { query: { limit: -1 } });
          assertStatus(res, 200, `services of ${identity.id} on controller ${n}`);
          const got = res.body.data.map((s: { id: string }) => s.id).sort();
          assert.deepEqual(got, expected, `services of ${identity.id} on controller ${n} after:\n${done.join('\n')}`);
        }
      }
    }
    // Lists that are all empty would agree with any controller that never saw a policy.
    assert.ok(granted > STEPS, `the sequence granted access often enough to check (${granted} non-empty lists)`);
  });
});
