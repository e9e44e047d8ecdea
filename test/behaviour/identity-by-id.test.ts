// GET /identities/{id} reads the identity's row with its read model in one read (docs/performance.md); the page of
// a list reads the rows first. Both must answer the same identity byte for byte, whatever it has. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';

for (const store of storesUnderTest()) {
  describe(`an identity by id answers what its list entry answers (${store})`, () => {
    let t: TestApp;
    const ids: Record<string, string> = {};
    before(async () => {
      t = await createTestApp(store);
      const create = async (json: Record<string, unknown>) =>
        (await t.admin.request('POST', '/identities', { json })).body.data.id as string;
      ids.bare = await create({ name: 'bare', type: 'User', isAdmin: false });
      ids.enrolling = await create({
        name: 'enrolling',
        type: 'Device',
        isAdmin: false,
        roleAttributes: ['b', 'a'],
        tags: { team: 'x', n: 1 },
        externalId: 'ext-enrolling',
        enrollment: { ott: true },
      });
      const updb = { method: 'updb', identityId: ids.enrolling, username: 'enrolling', password: 'Enrolling-pass-1' };
      await t.admin.request('POST', '/authenticators', { json: updb });
      ids.disabled = await create({ name: 'disabled', type: 'User', isAdmin: true });
      await t.admin.request('POST', `/identities/${ids.disabled}/disable`, { json: { durationMinutes: 30 } });
      // The logged-in identities: each has an API session and its updb authenticator.
      const own = await t.admin.request('GET', '/current-identity');
      ids.admin = own.body.data.id;
      ids.user = (await t.user.request('GET', '/edge/client/v1/current-identity')).body.data.id;
    });
    after(async () => t?.close());

    it('the same answer, key for key, for identities with and without related rows', async () => {
      for (const [what, id] of Object.entries(ids)) {
        const byId = await t.admin.request('GET', `/identities/${id}`);
        assert.equal(byId.status, 200, `${what}: ${JSON.stringify(byId.body)}`);
        const query = `filter=${encodeURIComponent(`id="${id}"`)}`;
        const listed = await t.admin.request('GET', '/identities', { query });
        assert.equal(listed.body.data.length, 1, what);
        assert.equal(JSON.stringify(byId.body.data), JSON.stringify(listed.body.data[0]), what);
      }
      const enrolling = (await t.admin.request('GET', `/identities/${ids.enrolling}`)).body.data;
      assert.equal(enrolling.authenticators.updb.username, 'enrolling');
      assert.ok(enrolling.enrollment.ott.jwt);
      assert.equal((await t.admin.request('GET', `/identities/${ids.user}`)).body.data.hasApiSession, true);
      assert.equal((await t.admin.request('GET', `/identities/${ids.disabled}`)).body.data.disabled, true);
    });

    it("says when the session expires: the request's time and the session timeout, at each request", async () => {
      const runtime = t.app.runtime;
      const clock = runtime.clock;
      const start = Date.now() + 1_000;
      try {
        // A millisecond apart, then the first time again: each answer states its own request's expiry.
        for (const at of [start, start + 1, start]) {
          runtime.clock = () => new Date(at);
          const res = await t.admin.request('GET', `/identities/${ids.bare}`);
          assert.equal(res.headers?.['expires-at'], new Date(at + runtime.config.sessionTimeoutMs).toISOString());
        }
      } finally {
        runtime.clock = clock;
      }
    });

    it('an unknown id: 404 NOT_FOUND, as for any resource', async () => {
      const res = await t.admin.request('GET', '/identities/no-such-identity');
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'NOT_FOUND');
    });
  });
}
