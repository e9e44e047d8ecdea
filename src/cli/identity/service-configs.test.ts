import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeApi } from '../testing/fake-api.js';
import { capture, parse } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';
import { buildIdentityServiceConfigs, runIdentityServiceConfigs } from './service-configs.js';
import type { ServiceConfigsOptions } from './service-configs.js';

async function options(argv: string[]): Promise<ServiceConfigsOptions> {
  const spy = capture<ServiceConfigsOptions>();
  await parse(buildIdentityServiceConfigs(testDeps(), spy.run), argv);
  return spy.last();
}

const ROW = {
  serviceId: 's1',
  service: { id: 's1', name: 'web' },
  configId: 'c2',
  config: { id: 'c2', name: 'web-mine' },
};

/** A controller holding the identity laptop and its service configs, and what else a test gives. */
function controller(routes: Record<string, unknown> = {}) {
  const listed = {
    'GET /identities/laptop': { id: 'i1', name: 'laptop' },
    'LIST /identities/i1/service-configs': [ROW],
  };
  return fakeApi({ ...listed, ...routes });
}

describe('identity service-configs', () => {
  it('reads repeated --set and --unset as SERVICE=CONFIG pairs', async () => {
    const o = await options(['laptop', '--set', 'web=web-mine', '--set', 'db=a=b', '--unset', 'web=web-old']);
    assert.deepEqual(o.set, [
      { service: 'web', config: 'web-mine' },
      { service: 'db', config: 'a=b' },
    ]);
    assert.deepEqual(o.unset, [{ service: 'web', config: 'web-old' }]);
    await assert.rejects(options(['laptop', '--set', 'web']), /SERVICE=CONFIG/);
    await assert.rejects(options(['laptop', '--set', 'web=']), /SERVICE=CONFIG/);
  });

  it('unsets, then sets, by ids resolved from names, and lists what the identity has now', async () => {
    const api = controller({
      'GET /services/web': { id: 's1', name: 'web' },
      'GET /configs/web-mine': { id: 'c2', name: 'web-mine' },
      'GET /configs/web-old': { id: 'c1', name: 'web-old' },
      'POST /identities/i1/service-configs': {},
      'DELETE /identities/i1/service-configs': {},
    });
    const deps = testDeps({ api });
    await runIdentityServiceConfigs(
      {
        identity: 'laptop',
        set: [{ service: 'web', config: 'web-mine' }],
        unset: [{ service: 'web', config: 'web-old' }],
        format: 'table',
      },
      deps,
    );
    const writes = api.calls.filter((c) => c.method !== 'GET');
    assert.deepEqual(
      writes.map((c) => `${c.method} ${c.path}`),
      ['DELETE /identities/i1/service-configs', 'POST /identities/i1/service-configs'],
    );
    assert.deepEqual(writes[0].body, [{ serviceId: 's1', configId: 'c1' }]);
    assert.deepEqual(writes[1].body, [{ serviceId: 's1', configId: 'c2' }]);
    assert.match(deps.io.stdoutText(), /web\s+web-mine/);
  });

  it('lists only, as json or quiet ids', async () => {
    const deps = testDeps({ api: controller() });
    await runIdentityServiceConfigs({ identity: 'laptop', set: [], unset: [], format: 'json' }, deps);
    assert.deepEqual(JSON.parse(deps.io.stdoutText()), [ROW]);
    const quiet = testDeps({ api: controller() });
    await runIdentityServiceConfigs({ identity: 'laptop', set: [], unset: [], format: 'table', quiet: true }, quiet);
    assert.equal(quiet.io.stdoutText(), 'c2\n');
  });
});
