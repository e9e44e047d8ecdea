// Service sessions created by clients (`POST /sessions` on the client API): Dial and Bind, every refusal in
// OpenZiti's order and shape (404, 400 for a type not granted, 409 INVALID_POSTURE, 400 NO_EDGE_ROUTERS_AVAILABLE),
// the token, and what ends a session: its API session (logout), its identity disabled or deleted, a policy change
// or an attribute change taking the permission away, its service deleted. Both stores; every response is checked
// against OpenZiti's Swagger by the in-process client.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type Client, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';
import { hasOperation, validateResponse } from '../helpers/spec.js';

const CLIENT = '/edge/client/v1';

function jwtClaims(token: string): Record<string, unknown> {
  const parts = token.split('.');
  assert.equal(parts.length, 3, `a JWT: ${token}`);
  return JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
}

for (const store of storesUnderTest()) {
  describe(`client-created service sessions (${store})`, () => {
    let t: TestApp;
    let routerId: string;

    async function create(path: string, json: Record<string, unknown>): Promise<string> {
      const res = await t.admin.request('POST', path, { json });
      assert.equal(res.status, 201, `${path}: ${JSON.stringify(res.body)}`);
      return res.body.data.id as string;
    }

    async function ok(res: { status: number; body: any }, status = 200) {
      assert.equal(res.status, status, JSON.stringify(res.body));
      return res.body;
    }

    /** A client (on the client API) of a new identity logged in with a password. */
    async function newIdentity(
      name: string,
      roleAttributes: string[],
    ): Promise<{ id: string; client: Client; token: string }> {
      const id = await create('/identities', { name, type: 'User', isAdmin: false, roleAttributes });
      await create('/authenticators', { method: 'updb', identityId: id, username: name, password: 'Pass-word-1' });
      const login = await ok(
        await t.anonymous.request('POST', `${CLIENT}/authenticate`, {
          query: 'method=password',
          json: { username: name, password: 'Pass-word-1' },
        }),
      );
      const token = login.data.token as string;
      const client: Client = {
        request: async (method, path, opts = {}) => {
          const res = await t.app.inject({
            method,
            url: `${CLIENT}${path}${opts.query ? `?${opts.query}` : ''}`,
            headers: {
              'zt-session': token,
              ...(opts.json === undefined ? {} : { 'content-type': 'application/json' }),
            },
            payload: opts.json === undefined ? undefined : JSON.stringify(opts.json),
          });
          const body = res.body ? JSON.parse(res.body) : undefined;
          // As the shared in-process client does: every answer must be what OpenZiti's Swagger says.
          if (hasOperation('client', method, path)) validateResponse('client', method, path, res.statusCode, body);
          return { status: res.statusCode, body };
        },
      };
      return { id, client, token };
    }

    /** An identity, a routed service and a Dial policy between them (by attribute `name`): one session's world. */
    async function world(name: string) {
      const who = await newIdentity(`${name}-identity`, [name]);
      const serviceId = await create('/services', {
        name: `${name}-service`,
        roleAttributes: [name, 'routed'],
        encryptionRequired: true,
      });
      const policyId = await create('/service-policies', {
        name: `${name}-dial`,
        type: 'Dial',
        semantic: 'AllOf',
        identityRoles: [`#${name}`],
        serviceRoles: [`#${name}`],
      });
      const session = await ok(
        await who.client.request('POST', '/sessions', { json: { serviceId, type: 'Dial' } }),
        201,
      );
      return {
        ...who,
        serviceId,
        policyId,
        sessionId: session.data.id as string,
        sessionToken: session.data.token as string,
      };
    }

    const exists = async (sessionId: string) => (await t.admin.request('GET', `/sessions/${sessionId}`)).status === 200;

    before(async () => {
      t = await createTestApp(store);
      routerId = await create('/edge-routers', { name: 'er-1', roleAttributes: ['public'] });
      await create('/edge-router-policies', {
        name: 'everyone-public',
        semantic: 'AnyOf',
        identityRoles: ['#all'],
        edgeRouterRoles: ['#public'],
      });
      // Only services with the attribute `routed` have an edge router: the others answer NO_EDGE_ROUTERS_AVAILABLE.
      await create('/service-edge-router-policies', {
        name: 'routed-services',
        semantic: 'AnyOf',
        serviceRoles: ['#routed'],
        edgeRouterRoles: ['#public'],
      });
    });
    after(async () => t?.close());

    it('creates a Dial session: the whole session, a signed token, its edge routers and granting policy', async () => {
      const w = await world('dialer');
      const stored = await t.app.runtime.store.repo('session').get(w.sessionId);
      assert.equal(
        stored.tokenHash,
        createHash('sha256').update(w.sessionToken).digest('hex'),
        'only the hash of the served token is kept',
      );
      const { data } = await ok(
        await w.client.request('POST', '/sessions', {
          json: { serviceId: w.serviceId, type: 'Dial', tags: { app: 'demo' } },
        }),
        201,
      );
      assert.equal(
        data.id,
        w.sessionId,
        'one session per API session, service and type: asking again answers the same',
      );
      assert.match(data.id, /^c[a-z0-9]{20,}$/, 'cuid-like');
      assert.equal(data.type, 'Dial');
      assert.equal(data.serviceId, w.serviceId);
      assert.equal(data.identityId, w.id);
      const claims = jwtClaims(data.token);
      assert.deepEqual(
        [claims.jti, claims.sub, claims.z_st, claims.z_t, claims.z_iid, claims.z_asid],
        [data.id, w.serviceId, 'Dial', 's', w.id, data.apiSessionId],
      );
      assert.deepEqual(claims.aud, ['openziti']);
      assert.deepEqual(
        data.edgeRouters.map((r: { name: string; urls: unknown }) => [r.name, typeof r.urls]),
        [['er-1', 'object']],
      );
      assert.deepEqual(
        data.servicePolicies.map((p: { id: string; name: string }) => [p.id, p.name]),
        [[w.policyId, 'dialer-dial']],
      );
      assert.ok(routerId);

      // The caller lists and reads its own sessions; the token is never served again.
      const list = await ok(await w.client.request('GET', '/sessions'));
      assert.deepEqual(
        list.data.map((s: { id: string }) => s.id),
        [data.id],
      );
      assert.equal(list.data[0].token, '');
      const one = await ok(await w.client.request('GET', `/sessions/${data.id}`));
      assert.equal(one.data.service.name, 'dialer-service');
      // Another identity does not see it.
      const other = await ok(await t.user.request('GET', `${CLIENT}/sessions`));
      assert.ok(!other.data.some((s: { id: string }) => s.id === data.id));
    });

    it('type defaults to Dial; Bind needs a Bind policy', async () => {
      const w = await world('binder');
      const dial = await ok(await w.client.request('POST', '/sessions', { json: { serviceId: w.serviceId } }), 201);
      assert.equal(dial.data.type, 'Dial');
      const refused = await w.client.request('POST', '/sessions', { json: { serviceId: w.serviceId, type: 'Bind' } });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.error.code, 'COULD_NOT_VALIDATE');
      assert.deepEqual(refused.body.error.cause, {
        field: 'serviceId',
        reason: 'service not found',
        value: w.serviceId,
      });
      const bindPolicy = await create('/service-policies', {
        name: 'binder-bind',
        type: 'Bind',
        semantic: 'AllOf',
        identityRoles: [`@${w.id}`],
        serviceRoles: [`@${w.serviceId}`],
      });
      const bind = await ok(
        await w.client.request('POST', '/sessions', { json: { serviceId: w.serviceId, type: 'Bind' } }),
        201,
      );
      assert.equal(bind.data.type, 'Bind');
      assert.notEqual(bind.data.id, dial.data.id);
      assert.deepEqual(
        bind.data.servicePolicies.map((p: { id: string }) => p.id),
        [bindPolicy],
      );
      assert.equal(jwtClaims(bind.data.token).z_st, 'Bind');
    });

    it('refuses a service the caller cannot see (404), a bad body (400), no shared edge router (400)', async () => {
      const w = await world('refused');
      const hidden = await create('/services', {
        name: 'hidden-service',
        roleAttributes: ['routed'],
        encryptionRequired: true,
      });
      for (const serviceId of [hidden, 'no-such-service']) {
        const res = await w.client.request('POST', '/sessions', { json: { serviceId, type: 'Dial' } });
        assert.equal(res.status, 404, JSON.stringify(res.body));
        assert.equal(res.body.error.code, 'NOT_FOUND');
      }
      for (const json of [{}, { serviceId: w.serviceId, type: 'Connect' }, { serviceId: 7 }]) {
        const res = await w.client.request('POST', '/sessions', { json });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.error.code, 'COULD_NOT_VALIDATE');
        assert.ok(['serviceId', 'type'].includes(res.body.error.cause.field), JSON.stringify(res.body.error.cause));
      }
      const unrouted = await create('/services', {
        name: 'unrouted-service',
        roleAttributes: ['refused'],
        encryptionRequired: true,
      });
      const res = await w.client.request('POST', '/sessions', { json: { serviceId: unrouted, type: 'Dial' } });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'NO_EDGE_ROUTERS_AVAILABLE');
      assert.equal(
        (await t.anonymous.request('POST', `${CLIENT}/sessions`, { json: { serviceId: w.serviceId } })).status,
        401,
      );
    });

    it('409 INVALID_POSTURE when every granting policy has posture checks; one without checks passes', async () => {
      const who = await newIdentity('guarded-identity', ['guarded']);
      const serviceId = await create('/services', {
        name: 'guarded-service',
        roleAttributes: ['guarded', 'routed'],
        encryptionRequired: true,
      });
      const check = await create('/posture-checks', {
        name: 'guarded-domain',
        typeId: 'DOMAIN',
        domains: ['corp.example'],
      });
      const strict = await create('/service-policies', {
        name: 'guarded-dial',
        type: 'Dial',
        semantic: 'AllOf',
        identityRoles: ['#guarded'],
        serviceRoles: ['#guarded'],
        postureCheckRoles: [`@${check}`],
      });
      const res = await who.client.request('POST', '/sessions', { json: { serviceId, type: 'Dial' } });
      assert.equal(res.status, 409, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'INVALID_POSTURE');
      assert.equal(res.body.error.cause.message, `Failed to pass posture checks for service policies: [${strict}]`);
      assert.deepEqual(res.body.error.cause.data, { [strict]: [{ id: check, typeId: 'DOMAIN', isPassing: false }] });

      const open = await create('/service-policies', {
        name: 'guarded-open',
        type: 'Dial',
        semantic: 'AllOf',
        identityRoles: ['#guarded'],
        serviceRoles: ['#guarded'],
      });
      const { data } = await ok(
        await who.client.request('POST', '/sessions', { json: { serviceId, type: 'Dial' } }),
        201,
      );
      assert.deepEqual(
        data.servicePolicies.map((p: { id: string }) => p.id),
        [open],
        'only the policies that passed grant it',
      );
    });

    it('ends with its API session (logout)', async () => {
      const w = await world('logout');
      assert.equal((await w.client.request('DELETE', '/current-api-session')).status, 200);
      assert.equal(await exists(w.sessionId), false);
    });

    it('ends when its identity is disabled or deleted', async () => {
      const disabled = await world('disabled');
      await ok(await t.admin.request('POST', `/identities/${disabled.id}/disable`, { json: { durationMinutes: 0 } }));
      assert.equal(await exists(disabled.sessionId), false);
      const deleted = await world('deleted');
      await ok(await t.admin.request('DELETE', `/identities/${deleted.id}`));
      assert.equal(await exists(deleted.sessionId), false);
    });

    it('ends when a policy change takes the permission away, and only then', async () => {
      const w = await world('policy');
      // Renaming the policy, or changing it in a way that keeps the grant, leaves the session alone.
      await ok(
        await t.admin.request('PATCH', `/service-policies/${w.policyId}`, {
          json: { name: 'policy-dial-renamed', identityRoles: ['#policy', `@${w.id}`] },
        }),
      );
      assert.equal(await exists(w.sessionId), true);
      await ok(
        await t.admin.request('PATCH', `/service-policies/${w.policyId}`, { json: { identityRoles: ['#nobody'] } }),
      );
      assert.equal(await exists(w.sessionId), false, 'the policy no longer selects the identity');

      const d = await world('policy-deleted');
      await ok(await t.admin.request('DELETE', `/service-policies/${d.policyId}`));
      assert.equal(await exists(d.sessionId), false, 'the only granting policy deleted');

      // A Dial policy turning into a Bind policy takes the Dial permission away.
      const r = await world('policy-retyped');
      const retyped = {
        name: 'policy-retyped-dial',
        type: 'Bind',
        semantic: 'AllOf',
        identityRoles: ['#policy-retyped'],
        serviceRoles: ['#policy-retyped'],
      };
      await ok(await t.admin.request('PUT', `/service-policies/${r.policyId}`, { json: retyped }));
      assert.equal(await exists(r.sessionId), false);
    });

    it("ends when an identity's or a service's attributes change so that no policy grants it", async () => {
      const i = await world('identity-attrs');
      await ok(
        await t.admin.request('PATCH', `/identities/${i.id}`, { json: { roleAttributes: ['identity-attrs', 'more'] } }),
      );
      assert.equal(await exists(i.sessionId), true, 'still granted');
      await ok(await t.admin.request('PATCH', `/identities/${i.id}`, { json: { roleAttributes: ['elsewhere'] } }));
      assert.equal(await exists(i.sessionId), false);

      const s = await world('service-attrs');
      await ok(await t.admin.request('PATCH', `/services/${s.serviceId}`, { json: { roleAttributes: ['routed'] } }));
      assert.equal(await exists(s.sessionId), false);
    });

    it('goes with its service', async () => {
      const w = await world('service-deleted');
      await ok(await t.admin.request('DELETE', `/services/${w.serviceId}`));
      assert.equal(await exists(w.sessionId), false);
    });
  });
}
