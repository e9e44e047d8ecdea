// An identity's posture data and the requests refused on posture: linked from the identity, answered as OpenZiti
// answers for an identity whose clients never reported, 404 for unknown ids. What reports and refusals fill them
// with: test/behaviour/client-api.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/in-process.js';

describe('identity posture', () => {
  let t: TestApp;
  let id: string;
  before(async () => {
    t = await createTestApp('sqlite');
    id = (await t.admin.request('POST', '/identities', { json: { name: 'postured', type: 'Device', isAdmin: false } }))
      .body.data.id;
  });
  after(async () => t?.close());

  it('is linked from the identity', async () => {
    const links = (await t.admin.request('GET', `/identities/${id}`)).body.data._links;
    assert.equal(links['posture-data'].href, `./identities/${id}/posture-data`);
    assert.equal(links['failed-service-requests'].href, `./identities/${id}/failed-service-requests`);
  });

  it('holds nothing reported and no refusals; an unknown identity is 404; admins only', async () => {
    const data = (await t.admin.request('GET', `/identities/${id}/posture-data`)).body.data;
    assert.deepEqual(data.processes, []);
    assert.deepEqual(data.mac.addresses, []);
    assert.equal(data.os.lastUpdatedAt, '0001-01-01T00:00:00.000Z');
    assert.deepEqual((await t.admin.request('GET', `/identities/${id}/failed-service-requests`)).body.data, []);
    assert.equal((await t.admin.request('GET', '/identities/nope/posture-data')).status, 404);
    assert.equal((await t.user.request('GET', `/identities/${id}/posture-data`)).status, 401);
  });
});
