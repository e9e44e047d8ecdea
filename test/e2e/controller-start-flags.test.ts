// `ctl controller start` flags of the security issue (docs/security.md): --admin-password warns on stderr that it
// is visible in ps; --admin-password-file sets the password without showing it; a second start on a directory in
// use exits with a usage error naming the directory.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CTL_BIN, ctlEnv } from '../helpers/cli.js';
import { dropDataDirDatabases, storeEnvFor } from '../helpers/postgres.js';
import { REPO_ROOT } from '../helpers/spec.js';
import { freePort } from '../helpers/ports.js';
import { HttpHelper, randomPassword } from '../helpers/controller.js';
import { readFileSync } from 'node:fs';

const children = new Set<ChildProcess>();
const tmpDirs: string[] = [];
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of tmpDirs) await rm(d, { recursive: true, force: true });
  await dropDataDirDatabases();
});

async function tmp(): Promise<string> {
  const d = await mkdtemp(path.join(os.tmpdir(), 'ctl-flags-'));
  tmpDirs.push(d);
  return d;
}

/** Starts the controller; resolves once it prints its data directory line (it is listening), or it exits. */
async function start(args: string[], env: Record<string, string | undefined> = {}) {
  // Under CTL_TEST_STORE=postgres each data directory gets a database of its own.
  const dataDir = args[args.indexOf('--data-dir') + 1];
  const storeEnv = args.includes('--data-dir') ? await storeEnvFor(dataDir) : {};
  const child = spawn(process.execPath, [CTL_BIN, 'controller', 'start', ...args], { cwd: REPO_ROOT, env: ctlEnv({ env: { ...storeEnv, ...env } }), stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  let code: number | null | undefined;
  void exited.then((c) => (code = c));
  for (let i = 0; i < 600 && code === undefined && !stderr.includes('data directory:'); i++) await sleep(50);
  return { child, stderr: () => stderr, code: () => code, exited };
}

describe('ctl controller start: secrets and the data directory', () => {
  it('--admin-password works but warns on stderr; --admin-password-file sets it without a warning', async () => {
    const dir = await tmp();
    const port = await freePort();
    const password = randomPassword();
    const a = await start(['--data-dir', path.join(dir, 'a'), '--port', String(port), '--admin-password', password]);
    assert.match(a.stderr(), /warning: --admin-password is visible/);
    a.child.kill('SIGTERM');
    await a.exited;

    const file = path.join(dir, 'admin-password');
    const filePassword = randomPassword();
    await writeFile(file, `${filePassword}\n`, { mode: 0o600 });
    const port2 = await freePort();
    const dataDir = path.join(dir, 'b');
    const b = await start(['--data-dir', dataDir, '--port', String(port2), '--admin-password-file', file]);
    try {
      assert.doesNotMatch(b.stderr(), /warning/);
      assert.doesNotMatch(b.stderr(), new RegExp(filePassword));
      const api = new HttpHelper(`https://127.0.0.1:${port2}`, readFileSync(path.join(dataDir, 'ca-bundle.pem'), 'utf8'));
      await api.login('admin', filePassword);

      // A second start on the same directory is refused with a message naming it.
      const second = await start(['--data-dir', dataDir, '--port', String(await freePort())]);
      await second.exited;
      assert.notEqual(second.code(), 0);
      assert.ok(second.stderr().includes(dataDir), second.stderr());
    } finally {
      b.child.kill('SIGTERM');
      await b.exited;
    }
  });
});
