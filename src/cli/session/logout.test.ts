import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openProfileStore } from '../../client/profiles.js';
import { parseArgv } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';
import { startStubController } from '../../client/testing/stub-controller.js';
import type { StubController } from '../../client/testing/stub-controller.js';
import { NotFoundError } from '../../console/errors.js';
import { runLogin } from './login.js';
import { buildLogout, runLogout } from './logout.js';

describe('ctl logout', () => {
  let stub: StubController;
  let configDir: string;
  before(async () => {
    stub = await startStubController();
    configDir = mkdtempSync(path.join(tmpdir(), 'ctl-logout-'));
    const env = { CTL_USERNAME: 'admin', CTL_PASSWORD: 'admin-pw' };
    await runLogin({ url: stub.url, yes: true }, testDeps({ configDir, env }));
    await runLogin({ url: stub.url }, testDeps({ configDir, env, globals: { profile: 'prod' } }));
  });
  after(async () => {
    await stub.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  it('takes no arguments of its own', async () => {
    let ran = false;
    await parseArgv(
      buildLogout(testDeps({ configDir }), async () => void (ran = true)),
      ['logout', '--profile', 'prod'],
    );
    assert.ok(ran);
    await assert.rejects(parseArgv(buildLogout(testDeps({ configDir })), ['logout', 'extra']), {
      code: 'commander.excessArguments',
    });
  });

  it('ends the session of the selected profile and says so on stderr', async () => {
    const store = await openProfileStore({ env: {}, dir: configDir });
    const token = store.session('prod')!.token;
    const deps = testDeps({ configDir, globals: { profile: 'prod' } });
    const { io } = deps;
    await runLogout({}, deps);
    assert.equal(io.stdoutText(), '');
    assert.equal(io.stderrText(), `Logged out of ${stub.url} (profile prod)\n`);
    assert.equal(stub.sessions.has(token), false);
    assert.equal(store.session('prod'), undefined);
    assert.ok(store.session('default'), 'other profiles keep their sessions');

    const again = testDeps({ configDir, globals: { profile: 'prod' } });
    await runLogout({}, again);
    assert.equal(again.io.stderrText(), `Not logged in to ${stub.url} (profile prod); nothing to do\n`);
  });

  it('refuses an unknown profile', async () => {
    await assert.rejects(runLogout({}, testDeps({ configDir, globals: { profile: 'ghost' } })), NotFoundError);
  });
});
