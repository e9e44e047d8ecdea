// ctl under a real pseudo-terminal (util-linux `script`), into closed pipes and under signals: a spinner must never
// hang a command or outlive it, and the process must always end when asked.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { CTL_BIN, type LoggedInCli, ctlEnv, withLoggedInCli } from '../helpers/cli.js';
import { type TestController, createIdentity, startTestController } from '../helpers/controller.js';

let ctl: TestController;
let cli: LoggedInCli;

before(async () => {
  ctl = await startTestController();
  const admin = await ctl.admin();
  for (let i = 0; i < 3; i++) await createIdentity(admin, { name: `tty-${i}` });
  cli = await withLoggedInCli(ctl);
});

after(async () => {
  await cli?.cleanup();
  await ctl?.close();
});

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  killed: boolean;
}

/** Runs `command` in a shell, killing it (and failing the caller's checks) if it outlives `limitMs`. */
function runShell(command: string, env: NodeJS.ProcessEnv, limitMs: number): Promise<Ended> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    let killed = false;
    const keep = (d: Buffer) => {
      if (output.length < 1_000_000) output += d.toString('utf8');
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const guard = setTimeout(() => {
      killed = true;
      process.kill(-child.pid!, 'SIGKILL');
    }, limitMs);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, output, killed });
    });
  });
}

/** A terminal like an interactive user's: no CI, colour allowed. `script` gives the child a pty of size 0x0. */
function terminalEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return ctlEnv({ configDir: cli.configDir, env: { CI: undefined, NO_COLOR: undefined, TERM: 'xterm-256color', ...extra } });
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const hasScript = spawnSync('script', ['--version']).status === 0;

describe('under a pseudo-terminal that reports no size', { skip: !hasScript && 'util-linux script is not installed' }, () => {
  for (const args of [['identity', 'list', '--all'], ['identity', 'list', '--all', '-q'], ['identity', 'list', '--all', '-o', 'json']]) {
    it(`ctl ${args.join(' ')} ends promptly with the result, without a spinner`, async () => {
      const line = [process.execPath, CTL_BIN, ...args].map(quote).join(' ');
      const r = await runShell(`script -qec ${quote(line)} /dev/null`, terminalEnv(), 20_000);
      assert.equal(r.killed, false, `still running after 20 s; ${r.output.length} bytes of output so far`);
      assert.equal(r.code, 0, r.output.slice(0, 2000));
      assert.match(r.output, /tty-2|\S{10,}/);
      assert.ok(r.output.length < 20_000, `${r.output.length} bytes of output`);
    });
  }
});

describe('signals and closed pipes', () => {
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
    it(`${signal} ends ctl while it waits`, async () => {
      // A controller address that accepts the connection and never answers: ctl is simply busy waiting.
      const silent = createServer(() => {});
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
      const port = (silent.address() as AddressInfo).port;
      const child = spawn(process.execPath, [CTL_BIN, 'api', 'GET', '/version'], {
        env: ctlEnv({ configDir: cli.configDir, env: { CTL_CONTROLLER: `https://127.0.0.1:${port}`, CTL_TOKEN: 'x' } }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      await new Promise((r) => setTimeout(r, 1500));
      child.kill(signal);
      const ended = await Promise.race([
        new Promise<boolean>((r) => child.on('exit', () => r(true))),
        new Promise<boolean>((r) => setTimeout(() => r(false), 5000)),
      ]);
      if (!ended) child.kill('SIGKILL');
      silent.close();
            assert.ok(ended, `ctl did not end within 5 s of ${signal}`);
    });
  }

  it('output into a closed pipe ends quietly (ctl login --help | true)', async () => {
    const ctlLine = (args: string) => `${quote(process.execPath)} ${quote(CTL_BIN)} ${args}`;
    const line = `${ctlLine('login --help')} | true; ${ctlLine('identity list -o yaml')} | true`;
    const r = await runShell(line, ctlEnv({ configDir: cli.configDir }), 20_000);
    assert.equal(r.killed, false);
    assert.doesNotMatch(r.output, /EPIPE|Error|at /);
  });
});
