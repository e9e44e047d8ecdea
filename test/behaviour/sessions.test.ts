// Service sessions: the management list, get and delete (read model valid against OpenZiti's Swagger, no token),
// the route path, what ends a session (its API session, its service; a deleted policy leaves its list), and the
// client API's view of the caller's own sessions. These tests write their rows through the store, to set up what the
// client API's create would refuse; the create itself is in client-sessions.test.ts. Both stores.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type Client, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';
import { checkResponse } from '../helpers/in-process-specs.js';

const CLIENT = '/edge/client/v1';

for (const store of storesUnderTest()) {
  describe(`service sessions (${store})`, () => {
    let t: TestApp;
    let userId: string;
    let serviceId: string;
    let policyId: string;

    /** Checks a management response against OpenZiti's Swagger and returns its body. */
    async function managed(method: string, path: string, expected: number): Promise<any> {
      const res = await t.admin.request(method, path);
      assert.equal(res.status, expected, `${method} ${path}: ${JSON.stringify(res.body)}`);
      await checkResponse(t, 'management', method, path, res.status, res.body);
      return res.body;
    }

    async function apiSessionOf(identityId: string): Promise<string> {
      const res = await t.admin.request('GET', '/api-sessions', {
        query: `filter=${encodeURIComponent(`identityId = "${identityId}"`)}`,
      });
      return res.body.data[0].id;
    }

    /** A session row as the client API's create will write it. */
    async function insertSession(values: {
      apiSessionId: string;
      identityId: string;
      serviceId: string;
      type: string;
      servicePolicies?: string[];
    }): Promise<string> {
      const now = new Date().toISOString();
      return t.app.runtime.writes.insert('session', { ...values, tokenHash: randomUUID() }, { now });
    }

    before(async () => {
      t = await createTestApp(store);
      userId = (
        await t.admin.request('GET', '/identities', {
          query: `filter=${encodeURIComponent('name = "conformance-user"')}`,
        })
      ).body.data[0].id;
      serviceId = (await t.admin.request('POST', '/services', { json: { name: 'web', encryptionRequired: true } })).body
        .data.id;
      const policy = await t.admin.request('POST', '/service-policies', {
        json: {
          name: 'web-dial',
          type: 'Dial',
          semantic: 'AnyOf',
          identityRoles: ['#all'],
          serviceRoles: [`@${serviceId}`],
        },
      });
      assert.equal(policy.status, 201, JSON.stringify(policy.body));
      policyId = policy.body.data.id;
    });
    after(async () => t?.close());

    it('lists and reads a session as OpenZiti serves it, without its token', async () => {
      const apiSessionId = await apiSessionOf(userId);
      const id = await insertSession({
        apiSessionId,
        identityId: userId,
        serviceId,
        type: 'Dial',
        servicePolicies: [policyId],
      });
      const list = await managed('GET', '/sessions', 200);
      assert.ok(list.data.some((s: { id: string }) => s.id === id));
      const { data } = await managed('GET', `/sessions/${id}`, 200);
      assert.equal(data.type, 'Dial');
      assert.equal(data.identityId, userId);
      assert.equal(data.apiSessionId, apiSessionId);
      assert.deepEqual(
        { entity: data.apiSession.entity, id: data.apiSession.id },
        { entity: 'api-sessions', id: apiSessionId },
      );
      assert.deepEqual(
        { entity: data.service.entity, id: data.service.id, name: data.service.name },
        { entity: 'services', id: serviceId, name: 'web' },
      );
      assert.deepEqual(
        data.servicePolicies.map((p: { id: string; name: string }) => [p.id, p.name]),
        [[policyId, 'web-dial']],
      );
      assert.equal(data.token, '', 'only the hash is stored: the token is never served here');
      assert.deepEqual(data.edgeRouters, [], 'no edge router policy grants a router');
      const filtered = await managed('GET', `/sessions?filter=${encodeURIComponent('type = "Bind"')}`, 200);
      assert.ok(!filtered.data.some((s: { id: string }) => s.id === id), 'filtered by type');
      // OpenZiti's symbols for the references, and through them the referenced entities' own.
      for (const filter of [
        `apiSession = "${apiSessionId}"`,
        'identity.name = "conformance-user" and service.name = "web"',
      ]) {
        const found = await managed('GET', `/sessions?filter=${encodeURIComponent(filter)}`, 200);
        assert.ok(
          found.data.some((s: { id: string }) => s.id === id),
          filter,
        );
      }
    });

    it('names the edge routers both the identity and the service may use', async () => {
      const create = async (path: string, json: Record<string, unknown>) => {
        const res = await t.admin.request('POST', path, { json });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body.data.id as string;
      };
      await create('/edge-routers', { name: 'shared-er', roleAttributes: ['west'] });
      await create('/edge-routers', { name: 'identity-only-er', roleAttributes: ['east'] });
      await create('/edge-router-policies', {
        name: 'user-routers',
        semantic: 'AnyOf',
        identityRoles: [`@${userId}`],
        edgeRouterRoles: ['#west', '#east'],
      });
      await create('/service-edge-router-policies', {
        name: 'web-routers',
        semantic: 'AnyOf',
        serviceRoles: [`@${serviceId}`],
        edgeRouterRoles: ['#west'],
      });
      const id = await insertSession({
        apiSessionId: await apiSessionOf(userId),
        identityId: userId,
        serviceId,
        type: 'Dial',
      });
      const { data } = await managed('GET', `/sessions/${id}`, 200);
      assert.deepEqual(
        data.edgeRouters.map((r: { name: string; isOnline: boolean }) => [r.name, r.isOnline]),
        [['shared-er', false]],
      );
    });

    it('answers the route path: empty without a data plane, 404 for an unknown session', async () => {
      const id = await insertSession({
        apiSessionId: await apiSessionOf(userId),
        identityId: userId,
        serviceId,
        type: 'Bind',
      });
      const { data } = await managed(`GET`, `/sessions/${id}/route-path`, 200);
      assert.deepEqual(data, { routePath: [] });
      await managed('GET', '/sessions/no-such-session/route-path', 404);
    });

    it('deletes a session; an unknown id is 404', async () => {
      const id = await insertSession({
        apiSessionId: await apiSessionOf(userId),
        identityId: userId,
        serviceId,
        type: 'Dial',
      });
      await managed('DELETE', `/sessions/${id}`, 200);
      await managed('GET', `/sessions/${id}`, 404);
      await managed('DELETE', `/sessions/${id}`, 404);
    });

    it('ends with its API session (logout), and goes with its service', async () => {
      const login = await t.anonymous.request('POST', '/authenticate', {
        query: 'method=password',
        json: { username: 'conformance-user', password: 'User-password-1' },
      });
      const token = login.body.data.token as string;
      const apiSessionId = login.body.data.id as string;
      const ended = await insertSession({ apiSessionId, identityId: userId, serviceId, type: 'Dial' });
      const res = await t.app.inject({
        method: 'DELETE',
        url: `${CLIENT}/current-api-session`,
        headers: { 'zt-session': token },
      });
      assert.equal(res.statusCode, 200);
      await managed('GET', `/sessions/${ended}`, 404);

      const other = (
        await t.admin.request('POST', '/services', { json: { name: 'short-lived', encryptionRequired: true } })
      ).body.data.id;
      const gone = await insertSession({
        apiSessionId: await apiSessionOf(userId),
        identityId: userId,
        serviceId: other,
        type: 'Bind',
      });
      assert.equal(
        (await t.admin.request('DELETE', `/services/${other}`)).status,
        200,
        'a service with sessions can be deleted, as in OpenZiti',
      );
      await managed('GET', `/sessions/${gone}`, 404);
    });

    it('a deleted service policy leaves the lists of the sessions it granted', async () => {
      // Two Bind policies grant it: with one deleted the permission stands (the session would end with the last).
      const bind = async (name: string) =>
        (
          await t.admin.request('POST', '/service-policies', {
            json: { name, type: 'Bind', semantic: 'AllOf', identityRoles: ['#all'], serviceRoles: ['#all'] },
          })
        ).body.data.id;
      const policy = await bind('temporary');
      const lasting = await bind('lasting');
      const id = await insertSession({
        apiSessionId: await apiSessionOf(userId),
        identityId: userId,
        serviceId,
        type: 'Bind',
        servicePolicies: [policy, lasting],
      });
      assert.equal((await t.admin.request('DELETE', `/service-policies/${policy}`)).status, 200);
      const { data } = await managed('GET', `/sessions/${id}`, 200);
      assert.deepEqual(
        data.servicePolicies.map((p: { id: string }) => p.id),
        [lasting],
      );
    });

    it('on the client API, an identity sees and deletes its own sessions only', async () => {
      const adminId = (await t.admin.request('GET', '/current-identity')).body.data.id;
      const mine = await insertSession({
        apiSessionId: await apiSessionOf(userId),
        identityId: userId,
        serviceId,
        type: 'Dial',
      });
      const theirs = await insertSession({
        apiSessionId: await apiSessionOf(adminId),
        identityId: adminId,
        serviceId,
        type: 'Dial',
      });
      const client = (method: string, path: string, who: Client = t.user) => who.request(method, `${CLIENT}${path}`);
      const list = await client('GET', '/sessions');
      assert.equal(list.status, 200);
      await checkResponse(t, 'client', 'GET', '/sessions', 200, list.body);
      const ids = list.body.data.map((s: { id: string }) => s.id);
      assert.ok(ids.includes(mine));
      assert.ok(!ids.includes(theirs), "another identity's session is not listed");
      const one = await client('GET', `/sessions/${mine}`);
      assert.equal(one.status, 200);
      await checkResponse(t, 'client', 'GET', `/sessions/${mine}`, 200, one.body);
      assert.equal((await client('GET', `/sessions/${theirs}`)).status, 404);
      assert.equal((await client('DELETE', `/sessions/${theirs}`)).status, 404);
      assert.equal((await client('DELETE', `/sessions/${mine}`)).status, 200);
      assert.equal((await t.admin.request('GET', `/sessions/${theirs}`)).status, 200, 'untouched');
      assert.equal((await client('GET', '/sessions', t.anonymous)).status, 401);
    });

    it("the summary counts sessions under OpenZiti's key", async () => {
      const before = (await t.admin.request('GET', '/summary')).body.data.sessions;
      await insertSession({ apiSessionId: await apiSessionOf(userId), identityId: userId, serviceId, type: 'Dial' });
      assert.equal((await t.admin.request('GET', '/summary')).body.data.sessions, before + 1);
    });
  });
}
