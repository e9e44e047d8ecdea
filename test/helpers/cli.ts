/**
 * Runs ctl as a user would, with its own config directory, no terminal, `CI=true` and `NO_COLOR=1`, against a real
 * controller, and collects stdout, stderr and the exit code. By default the command line runs inside the test
 * process through the same `run()` the binary calls (string buffers for the streams): a process per command costs
 * about 150 ms of CPU, and the suite runs hundreds. Tests about the process itself (the built binary, signals,
 * terminals, a working directory, commands that launch a controller) pass `process: true` and get `node bin/ctl.js`.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './spec.js';

export const CTL_BIN = path.join(REPO_ROOT, 'bin', 'ctl.js');

export interface CtlResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Extra environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed. Without it stdin is /dev/null. Bytes as they are, text as UTF-8. */
  stdin?: string | Buffer;
  /** The config directory (CTL_CONFIG_DIR). */
  configDir?: string;
  cwd?: string;
  /** Guard against a hung child (not an assertion about speed). Default 120 s. */
  killAfterMs?: number;
  /** Run the built binary as a child process instead of in this process (see above). */
  process?: boolean;
}

/** The environment a child CLI sees: the parent's, minus anything CTL_* or colour related, plus ours. */
export function ctlEnv(opts: RunOptions = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('CTL_') || k === 'FORCE_COLOR' || k === 'NODE_EXTRA_CA_CERTS' || k === 'NODE_OPTIONS') continue;
    env[k] = v;
  }
  env.CI = 'true';
  env.NO_COLOR = '1';
  env.TERM = 'dumb';
  // A bug's stack in the test log: a failure that does not repeat can then still be read.
  env.CTL_ERROR_STACK = '1';
  if (opts.configDir) env.CTL_CONFIG_DIR = opts.configDir;
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function runCtl(args: string[], opts: RunOptions = {}): Promise<CtlResult> {
  return opts.process ? spawnCtl(args, opts) : runInProcess(args, opts);
}

/** Commands that start processes of their own (a controller in the background) and so need a real ctl to start. */
const LAUNCHERS = new Set(['controller', 'quickstart']);

async function runInProcess(args: string[], opts: RunOptions): Promise<CtlResult> {
  assert.ok(opts.cwd === undefined, 'a working directory needs a ctl process of its own: pass process: true');
  assert.ok(!LAUNCHERS.has(args[0]!), `'ctl ${args[0]}' launches processes: pass process: true`);
  for (const read of ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS'])
    assert.ok(opts.env?.[read] === undefined, `${read} is read when a process starts: pass process: true`);
  const [{ run }, { createTestIO }] = await Promise.all([
    import('../../src/cli/main.js'),
    import('../../src/client/testing/test-io.js'),
  ]);
  const io = createTestIO({ stdin: opts.stdin });
  const code = await run(args, { env: ctlEnv(opts), io });
  return { code, signal: null, stdout: io.stdoutText(), stderr: io.stderrText() };
}

function spawnCtl(args: string[], opts: RunOptions): Promise<CtlResult> {
  assert.ok(existsSync(CTL_BIN), `${CTL_BIN} does not exist: build the CLI first (npm run build)`);
  return new Promise<CtlResult>((resolve, reject) => {
    const child = spawn(process.execPath, [CTL_BIN, ...args], {
      cwd: opts.cwd ?? REPO_ROOT,
      env: ctlEnv(opts),
      stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const guard = setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs ?? 120_000);
    child.on('error', (err) => {
      clearTimeout(guard);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, stdout, stderr });
    });
    if (opts.stdin !== undefined) {
      child.stdin!.on('error', () => {});
      child.stdin!.end(opts.stdin);
    }
  });
}

/** A readable summary of a CLI run, for assertion messages. */
export function describeRun(args: string[], r: CtlResult): string {
  return (
    `ctl ${args.join(' ')} -> exit ${r.code}${r.signal ? ` (${r.signal})` : ''}\n` +
    `--- stdout ---\n${r.stdout.slice(0, 3000)}\n--- stderr ---\n${r.stderr.slice(0, 3000)}`
  );
}

/** Runs ctl and asserts the exit code. */
export async function expectCtl(code: number, args: string[], opts: RunOptions = {}): Promise<CtlResult> {
  const r = await runCtl(args, opts);
  assert.equal(r.code, code, describeRun(args, r));
  return r;
}

export interface LoggedInCli {
  configDir: string;
  profile: string;
  run(args: string[], opts?: RunOptions): Promise<CtlResult>;
  expect(code: number, args: string[], opts?: RunOptions): Promise<CtlResult>;
  cleanup(): Promise<void>;
}

export async function tempConfigDir(): Promise<string> {
  // A fresh parent directory; the config directory itself is left for the CLI to create (and to set 0700).
  const parent = await mkdtemp(path.join(os.tmpdir(), 'ctl-cli-'));
  return path.join(parent, 'config');
}

/**
 * Logs a profile in with `ctl login <url> -u <user> --password-stdin --ca <file>` in a fresh config directory,
 * asserting success. Further runs use that config directory.
 */
export async function withLoggedInCli(
  controller: { url: string; caFile: string; adminUser?: string; adminPassword: string },
  opts: { username?: string; password?: string; profile?: string; configDir?: string } = {},
): Promise<LoggedInCli> {
  const configDir = opts.configDir ?? (await tempConfigDir());
  const username = opts.username ?? controller.adminUser ?? 'admin';
  const password = opts.password ?? controller.adminPassword;
  const args = ['login', controller.url, '-u', username, '--password-stdin', '--ca', controller.caFile];
  if (opts.profile) args.push('--profile', opts.profile);
  await expectCtl(0, args, { configDir, stdin: `${password}\n` });
  return {
    configDir,
    profile: opts.profile ?? 'default',
    run: (a, o = {}) => runCtl(a, { ...o, configDir }),
    expect: (code, a, o = {}) => expectCtl(code, a, { ...o, configDir }),
    cleanup: () => rm(path.dirname(configDir), { recursive: true, force: true }),
  };
}

/** Parses stdout as JSON, asserting that it is exactly one JSON document and nothing else. */
export function parseJsonOutput(r: CtlResult, what = 'stdout'): any {
  try {
    return JSON.parse(r.stdout);
  } catch (err) {
    assert.fail(`${what} is not a single JSON document (${(err as Error).message}):\n${r.stdout.slice(0, 2000)}`);
  }
}

/** The items of a list printed with `-o json` (a JSON array, or an envelope with a `data` array). */
export function jsonItems(doc: any): any[] {
  if (Array.isArray(doc)) return doc;
  if (doc && Array.isArray(doc.data)) return doc.data;
  assert.fail(`expected a JSON array of items (or {data: [...]}), got ${JSON.stringify(doc).slice(0, 500)}`);
}

/** The entity printed by `show -o json` (the object itself, or an envelope with a `data` object). */
export function jsonEntity(doc: any): any {
  if (doc && typeof doc === 'object' && !Array.isArray(doc)) {
    if (doc.data && typeof doc.data === 'object' && !Array.isArray(doc.data) && doc.meta !== undefined) return doc.data;
    return doc;
  }
  assert.fail(`expected a JSON object, got ${JSON.stringify(doc).slice(0, 500)}`);
}
