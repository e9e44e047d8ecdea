import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { capture, parse } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';
import { buildQuickstart, runQuickstart } from './quickstart.js';
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

describe('quickstart on a data directory it did not set up', () => {
  it('refuses, and spells the login it suggests as it was run (npx ctl where npx ran it)', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'ctl-quickstart-unit-'));
    const configDir = path.join(dataDir, 'config');
    try {
      // A controller's database, and no admin password of quickstart's beside it.
      writeFileSync(path.join(dataDir, 'ctl.db'), '');
      const opts = { dataDir, port: 0, profile: 'quickstart', timeoutMs: 1000 };
      const refusal = (env: Record<string, string>) =>
        runQuickstart(opts, testDeps({ env, configDir }), () => assert.fail('nothing is started')).then(
          () => assert.fail('quickstart went on'),
          (err: { message: string; details?: string[] }) => err,
        );
      const viaNpx = await refusal({ npm_command: 'exec' });
      assert.match(viaNpx.message, /was not set up by quickstart/);
      assert.deepEqual(viaNpx.details, ['log in with: npx ctl login <url> -u <admin user> --profile quickstart']);
      assert.deepEqual((await refusal({})).details, [
        'log in with: ctl login <url> -u <admin user> --profile quickstart',
      ]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
