import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeApi } from '../testing/fake-api.js';
import { capture, parse } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';
import { buildIdentityDisable, runIdentityDisable } from './disable.js';
import type { IdentityDisableOptions } from './disable.js';
import { runIdentityEnable } from './enable.js';

/** A controller holding identity a1, which takes the POST of `verb`. */
const api = (verb: 'enable' | 'disable') =>
  fakeApi({ 'GET /identities/a1': { id: 'a1', name: 'laptop-7' }, [`POST /identities/a1/${verb}`]: {} });

describe('identity enable and disable', () => {
  it('disable takes --for as minutes, and no --for as indefinitely (0)', async () => {
    const spy = capture<IdentityDisableOptions>();
    await parse(buildIdentityDisable(testDeps(), spy.run), ['laptop-7', '--for', '1d12h']);
    assert.deepEqual(spy.last(), { ref: 'laptop-7', minutes: 2160, duration: '1d12h' });
    await parse(buildIdentityDisable(testDeps(), spy.run), ['laptop-7']);
    assert.deepEqual(spy.last(), { ref: 'laptop-7', minutes: 0 });
  });

  it('rejects a malformed duration', async () => {
    await assert.rejects(
      parse(buildIdentityDisable(testDeps(), capture<IdentityDisableOptions>().run), ['x', '--for', 'soon']),
      /duration/,
    );
  });

  it('disable POSTs the duration', async () => {
    const fake = api('disable');
    const deps = testDeps({ api: fake });
    await runIdentityDisable({ ref: 'a1', minutes: 2160, duration: '1d12h' }, deps);
    assert.deepEqual(fake.calls.at(-1), {
      method: 'POST',
      path: '/identities/a1/disable',
      body: { durationMinutes: 2160 },
    });
    assert.equal(deps.io.stderrText(), 'disabled identity "a1" for 1d12h\n');
  });

  it('enable POSTs to the enable endpoint', async () => {
    const fake = api('enable');
    await runIdentityEnable({ ref: 'a1' }, testDeps({ api: fake }));
    assert.deepEqual(fake.calls.at(-1), { method: 'POST', path: '/identities/a1/enable', body: undefined });
  });
});
