// A login reads the identity's auth policy once and carries it to every later step (MFA required, a secondary token
// owed); a session create reads the identity's service policies once for its permissions and the policies that
// grant them. Counted on the store's own objects: the answers stay what the other behaviour tests hold them to.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/in-process.js';

const CLIENT = '/edge/client/v1';

describe('what a login and a session create read', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite');
  });
  after(async () => t?.close());

  async function create(path: string, json: Record<string, unknown>): Promise<string> {
    const res = await t.admin.request('POST', path, { json });
    assert.equal(res.status, 201, `${path}: ${JSON.stringify(res.body)}`);
    return res.body.data.id as string;
  }

  /** Runs `work`, counting the calls of `method` on `target` (the object itself, restored after). */
  async function counting<T extends object>(target: T, method: keyof T & string, work: () => Promise<unknown>) {
    const original = target[method] as (...args: unknown[]) => unknown;
    const calls: unknown[][] = [];
    Object.assign(target, {
      [method]: (...args: unknown[]) => {
        calls.push(args);
        return original.apply(target, args);
      },
    });
    try {
      await work();
    } finally {
      Object.assign(target, { [method]: original });
    }
    return calls;
  }

  it('a password login reads the auth policy once, though it owes a secondary token', async () => {
    const signer = await create('/external-jwt-signers', {
      name: 'read-once-idp',
      enabled: true,
      issuer: 'https://read-once.example',
      audience: 'ziti',
      jwksEndpoint: 'https://read-once.example/keys',
    });
    const updb = {
      allowed: true,
      minPasswordLength: 5,
      requireSpecialChar: false,
      requireNumberChar: false,
      requireMixedCase: false,
      maxAttempts: 0,
      lockoutDurationMinutes: 0,
    };
    const policy = await create('/auth-policies', {
      name: 'read-once',
      primary: {
        cert: { allowed: false, allowExpiredCerts: false },
        updb,
        extJwt: { allowed: false, allowedSigners: [] },
      },
      secondary: { requireTotp: false, requireExtJwtSigner: signer },
    });
    const id = await create('/identities', { name: 'read-once', type: 'User', isAdmin: false, authPolicyId: policy });
    await create('/authenticators', { method: 'updb', identityId: id, username: 'read-once', password: 'Read-once-1' });
    let reply: { status: number; body: any } | undefined;
    const reads = await counting(t.app.runtime.store.repo('auth-policy'), 'find', async () => {
      const json = { username: 'read-once', password: 'Read-once-1' };
      reply = await t.anonymous.request('POST', `${CLIENT}/authenticate`, { query: 'method=password', json });
    });
    assert.equal(reply?.status, 200, JSON.stringify(reply?.body));
    assert.equal(reply?.body.data.authQueries?.[0]?.typeId, 'EXT-JWT', 'the secondary token is owed');
    assert.deepEqual(reads, [[policy]]);
  });

  it("a session create reads the identity's service policies of each type once", async () => {
    const attributes = ['read-once'];
    const roles = ['#read-once'];
    const dialer = { name: 'read-once-dialer', type: 'User', isAdmin: false, roleAttributes: attributes };
    const id = await create('/identities', dialer);
    const password = 'Read-once-1';
    await create('/authenticators', { method: 'updb', identityId: id, username: 'read-once-dialer', password });
    const svc = { name: 'read-once-svc', encryptionRequired: true, roleAttributes: attributes };
    const service = await create('/services', svc);
    const anyOf = { semantic: 'AnyOf' };
    const dial = { name: 'read-once-dial', type: 'Dial', ...anyOf, identityRoles: roles, serviceRoles: roles };
    await create('/service-policies', dial);
    await create('/edge-routers', { name: 'read-once-er', roleAttributes: attributes });
    const erp = { name: 'read-once-erp', ...anyOf, identityRoles: roles, edgeRouterRoles: roles };
    await create('/edge-router-policies', erp);
    const serp = { name: 'read-once-serp', ...anyOf, serviceRoles: roles, edgeRouterRoles: roles };
    await create('/service-edge-router-policies', serp);
    const json = { username: 'read-once-dialer', password };
    const login = await t.anonymous.request('POST', `${CLIENT}/authenticate`, { query: 'method=password', json });
    const token = login.body.data.token as string;
    let status = 0;
    const identityPolicies = t.app.runtime.store.roleIndex('service-policy', 'identityRoles');
    const reads = await counting(identityPolicies, 'policiesSelecting', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: `${CLIENT}/sessions`,
        headers: { 'zt-session': token, 'content-type': 'application/json' },
        payload: JSON.stringify({ serviceId: service, type: 'Dial' }),
      });
      status = res.statusCode;
    });
    assert.equal(status, 201);
    const types = reads.map(([entity, where]) => `${entity} ${JSON.stringify(where)}`).sort();
    assert.deepEqual(types, [`${id} {"type":"Bind"}`, `${id} {"type":"Dial"}`]);
  });
});
