import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { capture, parse } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';
import { buildQuickstart } from './quickstart.js';
import type { QuickstartOptions } from './quickstart.js';

describe('quickstart flags', () => {
  const profileOf = async (deps: ReturnType<typeof testDeps>, argv: string[] = []) => {
    const spy = capture<QuickstartOptions>();
    await parse(buildQuickstart(deps, spy.run), argv);
    return spy.last().profile;
  };

  it('logs in the profile the global --profile names, as its own example says', async () => {
    assert.equal(await profileOf(testDeps({ globals: { profile: 'lab2' } })), 'lab2');
  });

  it('else CTL_PROFILE, else `quickstart`', async () => {
    assert.equal(await profileOf(testDeps({ env: { CTL_PROFILE: 'ci' } })), 'ci');
    assert.equal(await profileOf(testDeps()), 'quickstart');
  });

  it('has no second profile flag', async () => {
    await assert.rejects(profileOf(testDeps(), ['--profile-name', 'x']), /unknown option/);
  });
});
