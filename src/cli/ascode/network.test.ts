import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeApi } from '../testing/fake-api.js';
import { fileKind } from '../testing/kinds.js';
import { readNetwork } from './network.js';

describe('readNetwork', () => {
  it('reads each kind and the kinds it names once; rows read already are not read again', async () => {
    const policy = { id: 'p1', name: 'corp' };
    const laptop = { id: 'i1', name: 'laptop', authPolicyId: 'p1', roleAttributes: [], tags: {} };
    const api = fakeApi({
      'LIST /identities': [laptop],
      'LIST /auth-policies': [policy],
      'LIST /external-jwt-signers': [],
    });
    const narrow = await readNetwork(api, [fileKind('auth-policies')]);
    assert.deepEqual(
      api.calls.map((c) => `${c.method} ${c.path}`),
      ['GET /auth-policies', 'GET /external-jwt-signers'],
      'auth policies and the signers they name',
    );
    const wider = await readNetwork(api, [fileKind('auth-policies'), fileKind('identities')], narrow.rows);
    assert.deepEqual(
      api.calls.map((c) => `${c.method} ${c.path}`),
      ['GET /auth-policies', 'GET /external-jwt-signers', 'GET /identities'],
      'the auth policies read by the narrower network are not read again',
    );
    assert.deepEqual(wider.rows.get('auth-policy'), [policy]);
    assert.equal(wider.ids.get('auth-policy')?.get('corp'), 'p1');
    assert.deepEqual(
      wider.document.identities?.map((e) => [e.name, e.authPolicy]),
      [['laptop', 'corp']],
    );
    assert.equal(narrow.rows.has('identity'), false, 'the narrower network is left as it was');
  });
});
