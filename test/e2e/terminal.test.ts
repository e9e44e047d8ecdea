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
  return ctlEnv({
    configDir: cli.configDir,
    env: { CI: undefined, NO_COLOR: undefined, TERM: 'xterm-256color', ...extra },
  });
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const hasScript = spawnSync('script', ['--version']).status === 0;

describe('under a pseudo-terminal that reports no size', {
  skip: !hasScript && 'util-linux script is not installed',
}, () => {
  for (const args of [
    ['identity', 'list', '--all'],
    ['identity', 'list', '--all', '-q'],
    ['identity', 'list', '--all', '-o', 'json'],
  ]) {
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

/** A controller address that accepts connections and never answers; closed by the caller. */
async function silentController(): Promise<{ url: string; close: () => void }> {
  const silent = createServer(() => {});
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  return { url: `https://127.0.0.1:${(silent.address() as AddressInfo).port}`, close: () => silent.close() };
}

const noScript = !hasScript && 'util-linux script is not installed';

describe('a request left unanswered, under a sized pseudo-terminal', { skip: noScript }, () => {
  const ERASE_LINE = /\x1b\[[012]?K/;
  /** `ctl api GET /version` against a silent controller, in a 80x24 terminal, typing Ctrl-C after 3 s. */
  async function interrupted(env: Record<string, string>, redirect = ''): Promise<Ended> {
    const silent = await silentController();
    const ctlLine = [process.execPath, CTL_BIN, 'api', 'GET', '/version'].map(quote).join(' ');
    const line = `stty cols 80 rows 24; ${ctlLine}${redirect}`;
    const r = await runShell(
      `(sleep 3; printf '\\003') | script -qec ${quote(line)} /dev/null`,
      terminalEnv({ CTL_CONTROLLER: silent.url, CTL_TOKEN: 'x', ...env }),
      20_000,
    );
    silent.close();
    assert.equal(r.killed, false, 'Ctrl-C did not end ctl');
    return r;
  }

  it('says what it waits for after a moment, and Ctrl-C clears the spinner before ctl ends', async () => {
    const r = await interrupted({});
    const last = r.output.lastIndexOf('waiting for 127.0.0.1:');
    assert.ok(last >= 0, `no waiting notice: ${JSON.stringify(r.output.slice(0, 500))}`);
    // The last frame drawn is erased on its own line (before the newline after ^C): nothing of it stays on screen.
    const [frameLine] = r.output.slice(last).split('\n');
    assert.match(frameLine!, ERASE_LINE, JSON.stringify(r.output.slice(last)));
  });

  it('shows no spinner with CI set, nor when stderr is not the terminal', async () => {
    for (const [env, redirect] of [
      [{ CI: 'true' }, ''],
      [{}, ' 2>/dev/null; echo done'],
    ] as const) {
      const r = await interrupted(env, redirect);
      assert.doesNotMatch(r.output, /waiting for/);
      assert.doesNotMatch(r.output, /\x1b\[/);
    }
  });
});

describe('a prompt, under a pseudo-terminal', { skip: noScript }, () => {
  /** `ctl ARGS` in a terminal, typing `keys` once the output so far matches `when`. */
  function typing(args: string[], when: RegExp, keys: string): Promise<Ended> {
    const line = [process.execPath, CTL_BIN, ...args].map(quote).join(' ');
    return new Promise((resolve) => {
      const child = spawn('script', ['-qec', line, '/dev/null'], { env: terminalEnv(), detached: true });
      let output = '';
      let typed = false;
      const keep = (d: Buffer) => {
        output += d.toString('utf8');
        if (typed || !when.test(output)) return;
        typed = true;
        child.stdin.write(keys);
      };
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      const guard = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 20_000);
      child.on('close', (code, signal) => {
        clearTimeout(guard);
        resolve({ code, signal, output, killed: signal === 'SIGKILL' });
      });
    });
  }

  it('Ctrl-D at a prompt declines (exit 3), never ending ctl as a success', async () => {
    const ids = async () => (await cli.expect(0, ['identity', 'list', '--all', '-q'])).stdout;
    const before = await ids();
    const r = await typing(['identity', 'create'], /Name of the new identity/, '\x04');
    assert.equal(r.killed, false, 'ctl did not end after Ctrl-D');
    assert.equal(r.code, 3, r.output.slice(-1000));
    assert.match(r.output, /\nerror: no answer: the input ended at the prompt/);
    assert.equal(await ids(), before);
  });
});

describe('signals and closed pipes', () => {
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
    it(`${signal} ends ctl while it waits`, async () => {
      // A controller that never answers: ctl is simply busy waiting.
      const silent = await silentController();
      const child = spawn(process.execPath, [CTL_BIN, 'api', 'GET', '/version'], {
        env: ctlEnv({ configDir: cli.configDir, env: { CTL_CONTROLLER: silent.url, CTL_TOKEN: 'x' } }),
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
