import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeApi, inTurn, lookups } from './fake-api.js';

describe('the fake API', () => {
  it('answers stubbed requests, records them, and verifies when each stub was requested', async () => {
    const api = fakeApi({ 'GET /a': { id: 'a' }, 'LIST /bs': [{ id: 'b1' }, { id: 'b2' }] });
    assert.deepEqual(await api.get('/a'), { id: 'a' });
    assert.deepEqual((await api.list('/bs', { limit: 1 })).data, [{ id: 'b1' }]);
    assert.deepEqual(
      api.calls.map((c) => `${c.method} ${c.path}`),
      ['GET /a', 'GET /bs'],
    );
    api.verify();
  });

  it('fails verification for a stub never requested: the test asserted less than it claims', async () => {
    const api = fakeApi({ 'GET /a': {}, 'DELETE /a': {} });
    await api.get('/a');
    assert.throws(() => api.verify(), /DELETE \/a was stubbed but never requested/);
  });

  it('fails verification for a request nobody stubbed, even when the command swallowed the error', async () => {
    const api = fakeApi({});
    await assert.rejects(api.post('/x', {}), /unexpected request: POST \/x/);
    assert.throws(() => api.verify(), /POST \/x was requested but not stubbed/);
  });

  it('gives replies in turn, failing a request past the last and a reply never given', async () => {
    const api = fakeApi({ 'POST /v': inTurn(new Error('wrong code'), { ok: true }) });
    await assert.rejects(api.post('/v', { code: '1' }), /wrong code/);
    assert.throws(() => api.verify(), /POST \/v: 1 stubbed replies never requested/);
    assert.deepEqual(await api.post('/v', { code: '2' }), { ok: true });
    await assert.rejects(api.post('/v', { code: '3' }), /unexpected request: POST \/v/);
    assert.throws(() => api.verify(), /POST \/v was requested but not stubbed/);
  });

  it('records the body and headers of a DELETE', async () => {
    const api = fakeApi({ 'DELETE /s': {} });
    await api.delete('/s', { body: [{ id: 1 }], headers: { 'mfa-validation-code': '1' } });
    const recorded = { method: 'DELETE', path: '/s', body: [{ id: 1 }], headers: { 'mfa-validation-code': '1' } };
    assert.deepEqual(api.calls, [recorded]);
    api.verify();
  });

  it('stubs the lookups of refs: ids by GET, other refs by GET (404) and then by name', async () => {
    const rows = [{ id: 'i1', name: 'laptop' }];
    const api = fakeApi(lookups('identities', rows, ['i1', 'laptop']));
    assert.deepEqual(await api.get('/identities/i1'), rows[0]);
    await assert.rejects(api.get('/identities/laptop'), (err: Error & { code?: string }) => err.code === 'NOT_FOUND');
    assert.deepEqual((await api.list('/identities', { filter: 'name = "laptop"' })).data, rows);
    assert.deepEqual((await api.list('/identities', { filter: 'name = "other"' })).data, []);
    api.verify();
  });
});
