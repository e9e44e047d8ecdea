import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, notFound } from '../../protocol/errors.js';
import { authenticator } from '../../resources/authenticator.js';
import { identity } from '../../resources/identity.js';
import { EXIT } from '../../console/errors.js';
import { fetchEntity, quote, resolveId, resolveRefs } from './resolve.js';
import { fakeApi } from '../testing/fake-api.js';

const laptop = { id: 'a1', name: 'laptop-7' };

describe('resolve', () => {
  it('takes an exact id first, in one request', async () => {
    const api = fakeApi({ 'GET /identities/a1': laptop });
    assert.equal(await resolveId(api, identity, 'a1'), 'a1');
    assert.equal(api.calls.length, 1);
  });

  it('then an exact name, through a name filter', async () => {
    const api = fakeApi({ 'GET /identities/laptop-7': notFound('identity', 'laptop-7'), 'LIST /identities': [laptop] });
    assert.equal(await resolveId(api, identity, 'laptop-7'), 'a1');
    assert.deepEqual(api.calls[1].query, { filter: 'name = "laptop-7"', limit: 10 });
  });

  it('escapes quotes in names for the filter', () => {
    assert.equal(quote('say "hi" \\o/'), '"say \\"hi\\" \\\\o/"');
  });

  it('fetches the full detail of an entity found by name', async () => {
    const detail = { ...laptop, enrollment: { ott: { jwt: 'x' } } };
    const api = fakeApi({
      'GET /identities/laptop-7': notFound('identity', 'laptop-7'),
      'LIST /identities': [laptop],
      'GET /identities/a1': detail,
    });
    assert.deepEqual(await fetchEntity(api, identity, 'laptop-7'), detail);
  });

  it('reports a name that matches nothing as not found (exit 5)', async () => {
    const api = fakeApi({ 'GET /identities/nope': notFound('identity', 'nope'), 'LIST /identities': [] });
    await assert.rejects(resolveId(api, identity, 'nope'), (err: Error & { exitCode: number }) => {
      assert.equal(err.exitCode, EXIT.notFound);
      assert.equal(err.message, 'no identity named or with id "nope"');
      return true;
    });
  });

  it('lists the matches of an ambiguous name instead of guessing', async () => {
    const api = fakeApi({
      'GET /identities/twin': notFound('identity', 'twin'),
      'LIST /identities': [
        { id: 'a1', name: 'twin' },
        { id: 'b2', name: 'twin' },
      ],
    });
    await assert.rejects(resolveId(api, identity, 'twin'), (err: Error & { exitCode: number; details: string[] }) => {
      assert.equal(err.exitCode, EXIT.usage);
      assert.deepEqual(err.details, ['a1  twin', 'b2  twin']);
      return true;
    });
  });

  it('addresses resources without names by id only', async () => {
    const api = fakeApi({ 'GET /authenticators/zz': notFound('authenticator', 'zz') });
    await assert.rejects(resolveId(api, authenticator, 'zz'), /no authenticator with id "zz"/);
    assert.equal(api.calls.length, 1);
  });

  it('passes other errors through', async () => {
    const api = fakeApi({ 'GET /identities/a1': new ApiError('UNAUTHORIZED') });
    await assert.rejects(resolveId(api, identity, 'a1'), ApiError);
  });

  it('rejects an empty name before any request', async () => {
    const api = fakeApi({});
    await assert.rejects(resolveId(api, identity, ' '), /empty identity name or id/);
    assert.equal(api.calls.length, 0);
  });

  it('resolves reference flags to ids by field', async () => {
    const api = fakeApi({
      'GET /auth-policies/strict': notFound('auth policy', 'strict'),
      'LIST /auth-policies': [{ id: 'p9', name: 'strict' }],
    });
    assert.deepEqual(await resolveRefs(api, [{ field: 'authPolicyId', resource: 'auth-policy', value: 'strict' }]), {
      authPolicyId: 'p9',
    });
  });
});
