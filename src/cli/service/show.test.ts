import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../protocol/errors.js';
import { fakeApi } from '../testing/fake-api.js';
import { testDeps } from '../testing/test-deps.js';
import { runServiceShow } from './show.js';

const SERVICE = { id: 's1', name: 'web', configs: ['c1', 'c2'], encryptionRequired: true };

/** A controller holding the service web (found by name), and what else a test gives. */
function controller(routes: Record<string, unknown> = {}) {
  return fakeApi({
    'GET /services/web': new ApiError('NOT_FOUND', { status: 404 }),
    'LIST /services': [SERVICE],
    'GET /services/s1': SERVICE,
    ...routes,
  });
}

describe('service show', () => {
  it('shows the configs by name and type for people', async () => {
    const configs = [
      { id: 'c1', name: 'web-intercept', configType: { name: 'intercept.v1' } },
      { id: 'c2', name: 'web-host', configType: { name: 'host.v1' } },
    ];
    const deps = testDeps({ api: controller({ 'LIST /services/s1/configs': configs }) });
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
