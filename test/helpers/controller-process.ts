/**
 * `ctl controller start` as a process of its own, for the tests of that command: its children and temporary
 * directories are the file's, killed (if still running) and removed when the file is done, with the PostgreSQL
 * databases made for their data directories.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CTL_BIN, ctlEnv } from './cli.js';
import { dropDataDirDatabases, storeEnvFor } from './postgres.js';
import { REPO_ROOT } from './spec.js';

export interface StartedController {
  child: ChildProcess;
  stderr(): string;
  /** The exit code once it has exited, else undefined. */
  code(): number | null | undefined;
  exited: Promise<number | null>;
}

export function controllerProcesses() {
  const children = new Set<ChildProcess>();
  const tmpDirs: string[] = [];
  after(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const d of tmpDirs) await rm(d, { recursive: true, force: true });
    await dropDataDirDatabases();
  });
  return {
    /** Killed when the file is done, if still running. */
    track(child: ChildProcess): ChildProcess {
      children.add(child);
      return child;
    },

    /** A fresh temporary directory, removed when the file is done. */
    async tmpDir(prefix: string): Promise<string> {
      const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
      tmpDirs.push(dir);
      return dir;
    },

    /**
     * Starts `ctl controller start ARGS`; resolves once it prints its data directory line (it is listening), or it
     * exits. Under CTL_TEST_STORE=postgres the `--data-dir` given gets a database of its own.
     */
    async start(args: string[], env: Record<string, string | undefined> = {}): Promise<StartedController> {
      const storeEnv = args.includes('--data-dir') ? await storeEnvFor(args[args.indexOf('--data-dir') + 1]!) : {};
      const child = spawn(process.execPath, [CTL_BIN, 'controller', 'start', ...args], {
        cwd: REPO_ROOT,
        env: ctlEnv({ env: { ...storeEnv, ...env } }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.add(child);
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      let code: number | null | undefined;
      const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve((code = c))));
      for (let i = 0; i < 600 && code === undefined && !stderr.includes('data directory:'); i++) await sleep(50);
      return { child, stderr: () => stderr, code: () => code, exited };
    },
  };
}
