import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiClient } from '../../client/types.js';
import { lockoutMinutes, methodList, NEW_POLICY, policyBody } from './flags.js';

describe('auth-policy flags', () => {
  it('reads methods and durations', () => {
    assert.deepEqual(methodList('password, cert,ext-jwt,password'), ['password', 'cert', 'ext-jwt']);
    assert.deepEqual(methodList('none'), []);
    assert.throws(() => methodList('password,otp'), /unknown method 'otp'/);
    assert.deepEqual(['15m', '1h', '1d', '1d12h', '90', '0'].map(lockoutMinutes), [15, 60, 1440, 2160, 90, 0]);
    assert.throws(() => lockoutMinutes('soon'));
  });

  it('turns flags into the nested body; on update only what they name', async () => {
    const api = {
      get: async () => ({}),
      list: async () => ({ data: [{ id: 'sig-1', name: 'corp' }] }),
    } as unknown as ApiClient;
    const created = await policyBody(
      api,
      { primary: ['password'], maxAttempts: 3, lockoutMinutes: 15, requireTotp: true },
      NEW_POLICY,
    );
    assert.equal(created.primary.updb.allowed, true);
    assert.equal(created.primary.cert.allowed, false);
    assert.equal(created.primary.extJwt.allowed, false);
    assert.equal(created.primary.updb.maxAttempts, 3);
    assert.equal(created.primary.updb.lockoutDurationMinutes, 15);
    assert.equal(created.secondary.requireTotp, true);
    assert.equal(NEW_POLICY.primary.cert.allowed, true, 'the template is not changed');
    const patch = await policyBody(api, { requireNumber: true, requireExtJwt: null }, { primary: {}, secondary: {} });
    assert.deepEqual(patch, {
      primary: { updb: { requireNumberChar: true } },
      secondary: { requireExtJwtSigner: null },
    });
  });
});
