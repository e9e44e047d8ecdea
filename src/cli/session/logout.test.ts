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
import { EXIT, NotFoundError } from '../../console/errors.js';
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

describe('ctl logout --all', () => {
  let stub: StubController;
  let configDir: string;
  const env = { CTL_USERNAME: 'admin', CTL_PASSWORD: 'admin-pw' };
  const login = (profile: string) =>
    runLogin({ url: stub.url, yes: true }, testDeps({ configDir, env, globals: { profile } }));
  before(async () => {
    stub = await startStubController();
    configDir = mkdtempSync(path.join(tmpdir(), 'ctl-logout-all-'));
    for (const profile of ['default', 'prod', 'staging']) await login(profile);
  });
  after(async () => {
    await stub.close();
    rmSync(configDir, { recursive: true, force: true });
  });
  const tokens = async () => {
    const store = await openProfileStore({ env: {}, dir: configDir });
    return ['default', 'prod', 'staging'].map((name) => store.session(name)?.token);
  };

  it('takes --all and -y', async () => {
    let given: unknown;
    await parseArgv(
      buildLogout(testDeps({ configDir }), async (opts) => void (given = opts)),
      ['logout', '--all', '-y'],
    );
    assert.deepEqual(given, { all: true, yes: true });
  });

  it('needs confirmation: where nobody can be asked it declines (exit 3) and ends nothing', async () => {
    const before = await tokens();
    const deps = testDeps({ configDir });
    await assert.rejects(runLogout({ all: true }, deps), (err: Error & { exitCode?: number }) => {
      assert.equal(err.exitCode, EXIT.declined);
      assert.match(err.message, /logout --all needs confirmation/);
      return true;
    });
    assert.deepEqual(await tokens(), before);
    assert.ok(before.every((token) => token && stub.sessions.has(token)));
  });

  it('asks at a terminal; no keeps every session', async () => {
    const before = await tokens();
    const deps = testDeps({ configDir, tty: true, answers: { confirm: [false] } });
    await assert.rejects(runLogout({ all: true }, deps), { exitCode: EXIT.declined });
    assert.deepEqual(deps.prompts, ['End the sessions of profiles default, prod, staging?']);
    assert.deepEqual(await tokens(), before);
  });

  it('ends the session of every profile on the controller and forgets them, keeping the profiles', async () => {
    const before = await tokens();
    const deps = testDeps({ configDir });
    await runLogout({ all: true, yes: true }, deps);
    assert.equal(deps.io.stdoutText(), '');
    assert.deepEqual(
      deps.io.stderrText().trim().split('\n'),
      ['default', 'prod', 'staging'].map((name) => `Logged out of ${stub.url} (profile ${name})`),
    );
    assert.ok(
      before.every((token) => token && !stub.sessions.has(token)),
      'ended on the controller',
    );
    assert.deepEqual(await tokens(), [undefined, undefined, undefined]);
    const store = await openProfileStore({ env: {}, dir: configDir });
    assert.deepEqual(
      store
        .list()
        .map((p) => p.name)
        .sort(),
      ['default', 'prod', 'staging'],
    );

    const again = testDeps({ configDir });
    await runLogout({ all: true }, again);
    assert.equal(again.io.stderrText(), 'No profile holds a session; nothing to do\n');
  });
});
