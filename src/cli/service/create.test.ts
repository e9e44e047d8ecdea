import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../protocol/errors.js';
import { capture, fakeApi, parse, testDeps } from '../generic/testing.js';
import { buildServiceCreate, runServiceCreate } from './create.js';
import type { ServiceCreateOptions } from './create.js';

async function options(argv: string[]): Promise<ServiceCreateOptions> {
  const spy = capture<ServiceCreateOptions>();
  await parse(buildServiceCreate(testDeps(), spy.run), argv);
  return spy.last();
}

describe('service create', () => {
  it('reads repeated --config, attributes and --encryption-required', async () => {
    const o = await options(['web', '-a', 'internal', '--config', 'web-intercept', '--config', 'web-host', '--encryption-required']);
    assert.deepEqual(o, { name: 'web', configs: ['web-intercept', 'web-host'], input: { body: { roleAttributes: ['internal'], encryptionRequired: true }, refs: [] } });
    await assert.rejects(options(['web', '--configs', 'x']), /unknown option '--configs'/);
  });

  it('resolves the configs by name or id and creates the service (encryption off unless asked)', async () => {
    const notFound = new ApiError('NOT_FOUND', { status: 404 });
    const api = fakeApi({
      'GET /configs/web-intercept': notFound,
      'LIST /configs': (call: { query?: { filter?: string } }) => (call.query?.filter === 'name = "web-intercept"' ? [{ id: 'c1', name: 'web-intercept' }] : []),
      'GET /configs/c2': { id: 'c2', name: 'web-host' },
      'POST /services': { id: 's1', _links: {} },
    });
    const deps = testDeps({ api });
    await runServiceCreate({ name: 'web', configs: ['web-intercept', 'c2'], input: { body: { roleAttributes: ['internal'] }, refs: [] } }, deps);
    assert.deepEqual(api.calls.at(-1)!.body, { encryptionRequired: false, name: 'web', roleAttributes: ['internal'], configs: ['c1', 'c2'] });
    assert.equal(deps.io.stdoutText(), 's1\n');
  });
});
