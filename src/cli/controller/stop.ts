import { Command, Option } from '@commander-js/extra-typings';
import type { Deps } from '../deps.js';
import { FailureError } from '../../console/errors.js';
import { withMeta } from '../generic/meta.js';
import { defaultDataDir } from './paths.js';
import { runningState } from './state.js';

export interface StopOptions {
  dataDir: string;
  /** How long to wait for a clean exit before giving up. */
  timeoutMs: number;
}

export function buildStop(deps: Deps, run = runStop) {
  return withMeta(new Command('stop'), {
    description: 'Stop a controller started in the background (by ctl quickstart) or in another terminal',
    examples: ['ctl controller stop', 'ctl controller stop --data-dir ./ctrl'],
  })
    .addOption(new Option('--data-dir <dir>', 'data directory of the controller (default: the quickstart one)'))
    .action(async (o) => run({ dataDir: o.dataDir ?? defaultDataDir(deps.env), timeoutMs: 15_000 }, deps));
}

/** Sends SIGTERM and waits until the process is gone; stopping a controller that is not running is not an error. */
export async function runStop(opts: StopOptions, deps: Deps): Promise<void> {
  const state = runningState(opts.dataDir);
  if (!state) {
    deps.io.info(`no controller is running with data directory ${opts.dataDir}`);
    return;
  }
  process.kill(state.pid, 'SIGTERM');
  const deadline = Date.now() + opts.timeoutMs;
  while (runningState(opts.dataDir)?.pid === state.pid) {
    if (Date.now() > deadline)
      throw new FailureError(`the controller (pid ${state.pid}) did not stop within ${opts.timeoutMs / 1000}s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  deps.io.info(`stopped the controller on ${state.url} (pid ${state.pid})`);
}
