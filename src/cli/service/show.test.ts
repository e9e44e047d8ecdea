import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../protocol/errors.js';
import { fakeApi, testDeps } from '../generic/testing.js';
import { runServiceShow } from './show.js';

const SERVICE = { id: 's1', name: 'web', configs: ['c1', 'c2'], encryptionRequired: true };

function controller() {
  return fakeApi({
    'GET /services/web': new ApiError('NOT_FOUND', { status: 404 }),
    'LIST /services': [SERVICE],
    'GET /services/s1': SERVICE,
    'LIST /services/s1/configs': [
      { id: 'c1', name: 'web-intercept', configType: { name: 'intercept.v1' } },
      { id: 'c2', name: 'web-host', configType: { name: 'host.v1' } },
    ],
  });
}

describe('service show', () => {
  it('shows the configs by name and type for people', async () => {
    const deps = testDeps({ api: controller() });
    await runServiceShow({ ref: 'web', format: 'table' }, deps);
    assert.match(deps.io.stdoutText(), /web-intercept \(intercept\.v1\)/);
    assert.match(deps.io.stdoutText(), /web-host \(host\.v1\)/);
  });

  it('keeps the ids in json, for scripts', async () => {
    const api = controller();
    const deps = testDeps({ api });
    await runServiceShow({ ref: 'web', format: 'json' }, deps);
    assert.deepEqual(JSON.parse(deps.io.stdoutText()).configs, ['c1', 'c2']);
    assert.ok(!api.calls.some((c) => c.path === '/services/s1/configs'), 'no lookup of names it does not show');
  });
});
