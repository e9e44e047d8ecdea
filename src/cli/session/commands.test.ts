// whoami, version and api: flags, and runs against a stub controller after a real login.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseArgv } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';
import { startStubController } from '../../client/testing/stub-controller.js';
import type { StubController } from '../../client/testing/stub-controller.js';
import { AuthError, EXIT, UsageError } from '../../console/errors.js';
import { buildApi, runApi } from './api.js';
import { ApiError } from '../../protocol/errors.js';
import { describeFailure } from '../output/failure.js';
import type { ApiOptions } from './api.js';
import { runLogin } from './login.js';
import { clientVersion } from '../package-version.js';
import { runVersion } from './version.js';
import { runWhoami } from './whoami.js';

let stub: StubController;
let configDir: string;
const empties: string[] = [];
/** A config directory with no profile at all. */
function emptyDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'ctl-empty-'));
  empties.push(d);
  return d;
}
before(async () => {
  stub = await startStubController();
  configDir = mkdtempSync(path.join(tmpdir(), 'ctl-cmds-'));
  await runLogin(
    { url: stub.url, yes: true },
    testDeps({ configDir, env: { CTL_USERNAME: 'admin', CTL_PASSWORD: 'admin-pw' } }),
  );
});
after(async () => {
  await stub.close();
  for (const d of [configDir, ...empties]) rmSync(d, { recursive: true, force: true });
});

describe('ctl whoami', () => {
  it('shows identity, profile, controller and session expiry', async () => {
    const deps = testDeps({ configDir, globals: { output: 'json' } });
    const { io } = deps;
    await runWhoami({}, deps);
    assert.deepEqual(JSON.parse(io.stdoutText()), {
      name: 'Default Admin',
      id: 'id1',
      admin: true,
      profile: 'default',
      controller: stub.url,
      sessionExpiresAt: '2030-01-01T00:00:00.000Z',
    });
  });

  it('says how to log in when there is no session', async () => {
    await assert.rejects(runWhoami({}, testDeps({ configDir: emptyDir() })), AuthError);
  });

  it('names the environment, not a profile, when the credentials come from CTL_ variables', async () => {
    const env = { CTL_CONTROLLER: stub.url, CTL_USERNAME: 'admin', CTL_PASSWORD: 'admin-pw' };
    // The saved profile `default` trusts the stub's CA; its session is not what this run uses.
    const deps = testDeps({ configDir, env, globals: { output: 'json' } });
    const { io } = deps;
    await runWhoami({}, deps);
    const shown = JSON.parse(io.stdoutText()) as Record<string, unknown>;
    assert.equal(shown.profile, undefined, 'no profile was used');
    assert.equal(shown.credentials, 'CTL_USERNAME and CTL_PASSWORD');
    assert.equal(shown.controller, stub.url);
  });
});

describe('ctl version', () => {
  it('prints the client and, with a profile, the controller version', async () => {
    const deps = testDeps({ configDir, globals: { output: 'json' } });
    const { io } = deps;
    await runVersion({}, deps);
    const shown = JSON.parse(io.stdoutText()) as {
      client: { version: string };
      controller: { version: string; url: string };
    };
    assert.equal(shown.client.version, await clientVersion());
    assert.deepEqual([shown.controller.version, shown.controller.url], ['v9.9.9', stub.url]);
    const versionCall = stub.requests.filter((r) => r.url === '/edge/client/v1/version').at(-1);
    assert.equal(versionCall?.headers['zt-session'], undefined, 'anonymous');
  });

  it('without a profile prints only the client', async () => {
    const deps = testDeps({ configDir: emptyDir() });
    const { io } = deps;
    await runVersion({}, deps);
    assert.match(io.stdoutText(), /^client:\n {2}node: +v\d+/);
    assert.doesNotMatch(io.stdoutText(), /controller/);
  });
});

describe('ctl api', () => {
  it('maps argv to options', async () => {
    let seen: ApiOptions | undefined;
    await parseArgv(
      buildApi(testDeps({ configDir }), async (o) => void (seen = o)),
      ['api', 'post', '/services', '--data', '{}', '--client'],
    );
    assert.deepEqual(seen, { method: 'post', path: '/services', data: '{}', client: true });
    await assert.rejects(parseArgv(buildApi(testDeps({ configDir })), ['api', 'GET']), {
      code: 'commander.missingArgument',
    });
  });

  it('prints the JSON response', async () => {
    const deps = testDeps({ configDir });
    const { io } = deps;
    await runApi({ method: 'get', path: '/current-identity' }, deps);
    assert.deepEqual(JSON.parse(io.stdoutText()), {
      data: { id: 'id1', name: 'Default Admin', isAdmin: true },
      meta: null,
    });
    assert.ok(io.stdoutText().includes('\n  "data"'), 'pretty printed');
  });

  it('prints an error envelope on stdout and exits by status', async () => {
    const deps = testDeps({ configDir });
    const { io } = deps;
    await assert.rejects(runApi({ method: 'GET', path: '/nothing-here' }, deps), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.code, 'NOT_FOUND');
      assert.equal(describeFailure(err, false).exitCode, EXIT.notFound);
      return true;
    });
    assert.equal((JSON.parse(io.stdoutText()) as { error: { code: string } }).error.code, 'NOT_FOUND');
  });

  it('sends --data from text, a file or stdin, and refuses what is not JSON', async () => {
    const file = path.join(configDir, 'body.json');
    writeFileSync(file, '{"name":"from-file"}');
    for (const [data, stdin, want] of [
      ['{"a":1}', '', '{"a":1}'],
      [`@${file}`, '', '{"name":"from-file"}'],
      ['@-', '{"s":2}', '{"s":2}'],
    ]) {
      await assert.rejects(runApi({ method: 'POST', path: '/echo', data }, testDeps({ configDir, stdin })), ApiError);
      const sent = stub.requests.at(-1);
      assert.equal(sent?.body, want);
      assert.equal(sent?.headers['content-type'], 'application/json');
    }
    await assert.rejects(runApi({ method: 'POST', path: '/x', data: '{nope' }, testDeps({ configDir })), UsageError);
    await assert.rejects(runApi({ method: 'FETCH', path: '/x' }, testDeps({ configDir })), UsageError);
  });
});
