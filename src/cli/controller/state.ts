import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What a running controller writes into its data directory, so stop, status and quickstart can find it. */
export interface ControllerState {
  pid: number;
  url: string;
  port: number;
  startedAt: string;
}

const FILE = 'controller.json';

export function writeState(dataDir: string, state: ControllerState): void {
  const file = join(dataDir, FILE);
  writeFileSync(`${file}.tmp`, JSON.stringify(state, null, 2), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

export function readState(dataDir: string): ControllerState | undefined {
  try {
    return JSON.parse(readFileSync(join(dataDir, FILE), 'utf8')) as ControllerState;
  } catch {
    return undefined;
  }
}

export function clearState(dataDir: string, pid: number): void {
  if (readState(dataDir)?.pid === pid) rmSync(join(dataDir, FILE), { force: true });
}

/** The state of a controller whose process is still alive; a stale file (crash, kill -9) counts as not running. */
export function runningState(dataDir: string): ControllerState | undefined {
  const state = readState(dataDir);
  if (!state) return undefined;
  try {
    process.kill(state.pid, 0);
    return state;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? state : undefined;
  }
}

export function caBundleFile(dataDir: string): string {
  return join(dataDir, 'ca-bundle.pem');
}
