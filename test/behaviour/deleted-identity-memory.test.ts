// What the controller keeps in memory per identity (reported posture, refused service requests, the service update
// stamp, a trace, failed logins) goes with the identity, whichever route deletes it: the identity's own DELETE, and
// the routes that delete a tunneler router's identity with its router or its tunneler.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordMfaPassed } from '../../src/controller/model/posture/access.js';
import { activeTrace } from '../../src/controller/model/traces.js';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';

const LATER = new Date(Date.now() + 3_600_000);

for (const store of storesUnderTest()) {
  describe(`deleting an identity forgets what is kept in memory for it (${store})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(store);
    });
    after(async () => t?.close());

    /** Fills every piece of per-identity memory the way the client API and the login path fill it. */
    async function remember(id: string): Promise<void> {
      const rt = t.app.runtime;
      await recordMfaPassed(rt, id, 'an-api-session', new Date());
      await rt.posture.recordFailure(id, {
        apiSessionId: 'an-api-session',
        serviceId: 'a-service',
        serviceName: 'a-service',
        sessionType: 'Dial',
        when: new Date().toISOString(),
        policyFailures: [],
      });
      await rt.serviceUpdates.touch([id], LATER);
      await rt.loginThrottle.failed('127.0.0.1', `user-of-${id}`, id);
      const trace = { enabled: true, duration: '1h' };
      const traced = await t.admin.request('PUT', `/identities/${id}/trace`, { json: trace });
      assert.equal(traced.status, 200);
      assert.ok((await rt.posture.read(id)) && activeTrace(rt, id), 'the memory is filled before the delete');
    }

    async function assertForgotten(id: string): Promise<void> {
      const rt = t.app.runtime;
      assert.equal(await rt.posture.read(id), undefined, 'reported posture');
      assert.deepEqual(await rt.posture.failuresOf(id), [], 'refused service requests');
      assert.notEqual((await rt.serviceUpdates.lastChangeAt(id)).getTime(), LATER.getTime(), 'service update stamp');
      assert.equal(await rt.loginThrottle.failuresOf(id), undefined, 'failed logins');
      assert.equal(activeTrace(rt, id), undefined, 'trace');
    }

    async function create(path: string, body: Record<string, unknown>): Promise<string> {
      const res = await t.admin.request('POST', path, { json: body });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.data.id;
    }

    it('DELETE /identities/{id}', async () => {
      const id = await create('/identities', { name: 'forgotten', type: 'User', isAdmin: false });
      await remember(id);
      assert.equal((await t.admin.request('DELETE', `/identities/${id}`)).status, 200);
      await assertForgotten(id);
    });

    it('DELETE /edge-routers/{id} of a tunneler router (its identity goes with it)', async () => {
      const id = await create('/edge-routers', { name: 'forgotten-er-1', isTunnelerEnabled: true });
      await remember(id);
      assert.equal((await t.admin.request('DELETE', `/edge-routers/${id}`)).status, 200);
      await assertForgotten(id);
    });

    it('PATCH /edge-routers/{id} turning the tunneler off', async () => {
      const id = await create('/edge-routers', { name: 'forgotten-er-2', isTunnelerEnabled: true });
      await remember(id);
      const off = await t.admin.request('PATCH', `/edge-routers/${id}`, { json: { isTunnelerEnabled: false } });
      assert.equal(off.status, 200);
      await assertForgotten(id);
    });

    it('DELETE /routers/{id} of a tunneler edge router', async () => {
      const id = await create('/edge-routers', { name: 'forgotten-er-3', isTunnelerEnabled: true });
      await remember(id);
      assert.equal((await t.admin.request('DELETE', `/routers/${id}`)).status, 200);
      await assertForgotten(id);
    });
  });
}
