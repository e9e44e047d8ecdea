// The main job of the README: `ctl quickstart` starts a background controller, logs in a profile to it, and the
// rest of the CLI works with no flags; a second quickstart reuses the running controller; stop ends it.
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { expectCtl, runCtl } from '../helpers/cli.js';
import { dropDataDirDatabases, storeEnvFor } from '../helpers/postgres.js';
import { freePort } from '../helpers/ports.js';

describe('ctl quickstart', () => {
  let tmp: string;
  let env: { CTL_DATA_DIR: string; CTL_STORE_URL?: string };
  let configDir: string;
  let port: number;

  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-quickstart-'));
    const dataDir = path.join(tmp, 'data');
    // Under CTL_TEST_STORE=postgres the controller quickstart starts keeps its data in a database of its own.
    env = { CTL_DATA_DIR: dataDir, ...(await storeEnvFor(dataDir)) };
    configDir = path.join(tmp, 'config');
    port = await freePort();
  });

  after(async () => {
    await runCtl(['controller', 'stop'], { env, configDir, process: true });
    await rm(tmp, { recursive: true, force: true });
    await dropDataDirDatabases();
  });

  it('starts a controller, logs in profile quickstart and makes it current', async () => {
    const r = await expectCtl(0, ['quickstart', '--port', String(port)], { env, configDir, process: true });
    assert.equal(r.stdout, '');
    assert.match(r.stderr, new RegExp(`started a controller on https://127\\.0\\.0\\.1:${port}`));
    assert.match(r.stderr, /profile 'quickstart' is now the current profile/);
    const who = JSON.parse(
      (await expectCtl(0, ['whoami', '-o', 'json'], { env, configDir, process: true })).stdout,
    ) as Record<string, unknown>;
    assert.equal(who.profile, 'quickstart');
    assert.equal(who.admin, true);
    const profiles = await expectCtl(0, ['profile', 'list', '-q'], { env, configDir, process: true });
    assert.match(profiles.stdout, /quickstart/);
    // The admin password it keeps for later runs is readable by its owner only.
    assert.equal((await stat(path.join(env.CTL_DATA_DIR, 'quickstart-admin-password'))).mode & 0o777, 0o600);
  });

  it('lets the example of the README run without flags', async () => {
    const id = (
      await expectCtl(0, ['identity', 'create', 'laptop-7', '-a', 'sales,emea'], { env, configDir, process: true })
    ).stdout.trim();
    const listed = JSON.parse(
      (
        await expectCtl(0, ['identity', 'list', 'anyOf(roleAttributes) = "sales"', '-o', 'json'], {
          env,
          configDir,
          process: true,
        })
      ).stdout,
    );
    assert.deepEqual(
      listed.map((i: { id: string }) => i.id),
      [id],
    );
  });

  it('reuses the running controller when run again', async () => {
    const status = JSON.parse(
      (await expectCtl(0, ['controller', 'status', '-o', 'json'], { env, configDir, process: true })).stdout,
    );
    const r = await expectCtl(0, ['quickstart', '--port', String(port)], { env, configDir, process: true });
    assert.match(r.stderr, new RegExp(`reusing the controller running on .* \\(pid ${status.pid}\\)`));
    assert.match(r.stderr, /^ {2}ctl identity create laptop-7 /m);
  });

  it("spells the commands it suggests as README's npx ctl quickstart ran it, where no ctl is on PATH", async () => {
    const viaNpx = { ...env, npm_command: 'exec' };
    const r = await expectCtl(0, ['quickstart', '--port', String(port)], { env: viaNpx, configDir, process: true });
    assert.match(r.stderr, /^ {2}npx ctl identity create laptop-7 /m);
    assert.match(r.stderr, /^ {2}npx ctl controller status +# npx ctl controller stop to shut it down$/m);
  });

  it('with --data-dir, suggests controller commands with that --data-dir (without, they act on another)', async () => {
    const flagged = { ...env, CTL_DATA_DIR: undefined };
    const dir = env.CTL_DATA_DIR;
    const r = await expectCtl(0, ['quickstart', '--data-dir', dir], { env: flagged, configDir, process: true });
    assert.ok(r.stderr.includes(`ctl controller status --data-dir ${dir}`), r.stderr);
    assert.ok(r.stderr.includes(`ctl controller stop --data-dir ${dir} to shut it down`), r.stderr);
    const again = await runCtl(['controller', 'start', '--data-dir', dir], { env: flagged, configDir, process: true });
    assert.equal(again.code, 2, again.stderr);
    assert.ok(again.stderr.includes(`\`ctl controller stop --data-dir ${dir}\``), again.stderr);
    // With the data directory from the environment, the bare commands are the right ones.
    const plain = await expectCtl(0, ['quickstart'], { env, configDir, process: true });
    assert.match(plain.stderr, /ctl controller stop to shut it down/);
  });

  it('is stopped by ctl controller stop', async () => {
    await expectCtl(0, ['controller', 'stop'], { env, configDir, process: true });
    const status = JSON.parse(
      (await expectCtl(0, ['controller', 'status', '-o', 'json'], { env, configDir, process: true })).stdout,
    );
    assert.equal(status.running, false);
  });
});
