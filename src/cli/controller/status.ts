import { Command, Option } from '@commander-js/extra-typings';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { asFormat } from '../output/formats.js';
import { renderOne } from '../output/render.js';
import { defaultDataDir } from './paths.js';
import { runningState } from './state.js';

export function buildStatus(deps: Deps, run = runStatus) {
  return withMeta(new Command('status'), {
    description: 'Show whether a background controller is running, where, and since when',
    examples: ['ctl controller status', 'ctl controller status -o json'],
  })
    .addOption(new Option('--data-dir <dir>', 'data directory of the controller (default: the quickstart one)'))
    .action(async (o) => run({ dataDir: o.dataDir ?? defaultDataDir(deps.env) }, deps));
}

export async function runStatus(opts: { dataDir: string }, deps: Deps): Promise<void> {
  const state = runningState(opts.dataDir);
  const status = state
    ? { running: true, url: state.url, pid: state.pid, startedAt: state.startedAt, dataDir: opts.dataDir }
    : { running: false, dataDir: opts.dataDir };
  await renderOne(deps.io, status, { format: asFormat(deps.globals().output) });
}
