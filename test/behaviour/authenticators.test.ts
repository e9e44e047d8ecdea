// One password per identity, decided by the database: concurrent creates race past the handler's check (each
// spends its hashing work first) and exactly one wins. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';

for (const store of storesUnderTest()) {
  describe(`updb authenticators (${store})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(store);
    });
    after(async () => t?.close());

    it('of ten concurrent creates for one identity, exactly one succeeds', async () => {
      const identityId = (
        await t.admin.request('POST', '/identities', { json: { name: 'racer', type: 'User', isAdmin: false } })
      ).body.data.id;
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          t.admin.request('POST', '/authenticators', {
            json: { method: 'updb', identityId, username: `racer-${i}`, password: 'Password-1' },
          }),
        ),
      );
      const statuses = results.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 201).length, 1, statuses.join(','));
      for (const r of results.filter((r) => r.status !== 201))
        assert.equal(r.body.error.code, 'MAX_AUTHENTICATOR_METHODS_REACHED');
      const listed = await t.admin.request('GET', `/identities/${identityId}/authenticators`);
      assert.equal(listed.body.data.length, 1);
    });
  });
}
