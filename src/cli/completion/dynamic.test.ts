import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ApiError } from '../../protocol/errors.js';
import { fakeApi } from '../testing/fake-api.js';
import { testDeps } from '../testing/test-deps.js';
import { dynamicValues, profileNames } from './dynamic.js';

const dir = mkdtempSync(join(tmpdir(), 'ctl-dynamic-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const env = { CTL_CONFIG_DIR: dir };
const identities = { kind: 'resource', resource: 'identity' } as const;

describe('dynamic completion values', () => {
  it('reads profile names from config.json, and none when there is no file', () => {
    assert.deepEqual(profileNames({ CTL_CONFIG_DIR: join(dir, 'missing') }), []);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ current: 'lab', profiles: { default: {}, lab: {} } }));
    assert.deepEqual(profileNames(env), ['default', 'lab']);
  });

  it('asks the controller for names once, then answers from the cache until it expires', async () => {
    const api = fakeApi({
      'LIST /identities': [
        { id: 'a1', name: 'laptop-7' },
        { id: 'b2', name: 'server' },
      ],
      'LIST /identity-role-attributes': [],
    });
    const at = (ms: number) => testDeps({ api, env, now: new Date(Date.UTC(2025, 0, 1) + ms) });
    assert.deepEqual(await dynamicValues(at(0))(identities), ['laptop-7', 'server']);
    assert.deepEqual(api.calls[0].query, { limit: 500 });
    assert.deepEqual(await dynamicValues(at(10_000))(identities), ['laptop-7', 'server']);
    assert.equal(api.calls.length, 2, 'names and attributes, once');
    await dynamicValues(at(31_000))(identities);
    assert.equal(api.calls.length, 4);
  });

  it('keeps profiles apart in the cache', async () => {
    const api = fakeApi({ 'LIST /identities': [{ id: 'z', name: 'other' }], 'LIST /identity-role-attributes': [] });
    const deps = testDeps({ api, env, globals: { profile: 'lab' }, now: new Date(Date.UTC(2025, 0, 1)) });
    assert.deepEqual(await dynamicValues(deps)(identities), ['other']);
  });

  it('offers the role attributes in use, and roles as #attribute, @name and #all', async () => {
    const api = fakeApi({
      'LIST /identities': [
        { id: 'a1', name: 'laptop-7' },
        { id: 'b2', name: 'srv' },
      ],
      // the controller's set in use, beyond the page of names
      'LIST /identity-role-attributes': ['sales', 'emea', 'ops'],
    });
    const deps = testDeps({ api, env: { CTL_CONFIG_DIR: join(dir, 'roles') }, now: new Date(Date.UTC(2025, 0, 1)) });
    assert.deepEqual(await dynamicValues(deps)({ kind: 'attribute', resource: 'identity' }), ['emea', 'ops', 'sales']);
    assert.deepEqual(await dynamicValues(deps)({ kind: 'role', resource: 'identity' }), [
      '#all',
      '#emea',
      '#ops',
      '#sales',
      '@laptop-7',
      '@srv',
    ]);
  });

  it('offers ids for resources without names', async () => {
    const api = fakeApi({ 'LIST /api-sessions': [{ id: 's1' }] });
    assert.deepEqual(await dynamicValues(testDeps({ api, env }))({ kind: 'resource', resource: 'api-session' }), [
      's1',
    ]);
  });

  it('offers the names of several resources together (policies of every kind)', async () => {
    const api = fakeApi({
      'LIST /service-policies': [{ id: 'p1', name: 'sales-crm' }],
      'LIST /edge-router-policies': [{ id: 'p2', name: 'everyone-public' }],
      'LIST /enrollments': [{ id: 'e1' }],
    });
    const deps = testDeps({ api, env: { CTL_CONFIG_DIR: join(dir, 'several') } });
    const policies = { kind: 'resource', resource: ['service-policy', 'edge-router-policy'] } as const;
    assert.deepEqual(await dynamicValues(deps)(policies), ['sales-crm', 'everyone-public']);
    assert.deepEqual(await dynamicValues(deps)({ kind: 'resource', resource: 'enrollment' }), ['e1']);
  });

  it('is silent on failure: no candidates, no error', async () => {
    const api = fakeApi({ 'LIST /auth-policies': new ApiError('UNAUTHORIZED') });
    assert.deepEqual(await dynamicValues(testDeps({ api, env }))({ kind: 'resource', resource: 'auth-policy' }), []);
  });
});
