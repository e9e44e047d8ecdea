// Start-up of the CLI, as a user (and every TAB) pays it: fresh processes, each timed from a small helper process
// (spawn-timer.mjs) rather than from the bench's own. A spawn from a large parent costs tens of milliseconds more
// (the kernel copies its page tables), which is added to both sides of a ratio and flattens it.
//
// Run alone: `npm run build && node --import tsx bench/cli-start.ts [RUNS]` prints the start-up rows only.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt } from './stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const timer = join(root, 'bench', 'spawn-timer.mjs');
export const RUNS = 31;

export interface Timed {
  /** Median wall time of each command, in ms. */
  medians: number[];
  /** Mean CPU time (user + system) of each command's processes, in ms, where the platform tells. */
  cpu?: number[];
  /** Variables that change Node's own start, set in this environment and removed for the timed processes. */
  unset: string[];
}

/** The line that says which variables the timed processes ran without, if any. */
export function unsetNote({ unset }: Timed): string {
  if (unset.length === 0) return '';
  return `Timed without ${unset.join(', ')} (set here): Node's own start would pay it on both sides of each ratio.`;
}

/** A command for the helper: `node ARGS...`, or with variables added to the environment. */
export type TimedCommand = string[] | { args: string[]; env: Record<string, string> };

/** Runs each `node ARGS...` `runs` times, alternating between them, from the small helper process. */
export function startupTimes(commands: TimedCommand[], runs = RUNS, env: NodeJS.ProcessEnv = process.env): Timed {
  const r = spawnSync(process.execPath, [timer, String(runs), JSON.stringify(commands)], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`spawn-timer failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Timed;
}

/** Builds into `dir` (dist/ and bin/ctl.js) a CLI whose catalogue has `count` more resources, each like identity. */
export function buildWithSyntheticNouns(dir: string, count: number): string {
  const r = spawnSync(
    process.execPath,
    [join(root, 'scripts/build.mjs'), '--outdir', dir, '--synthetic-nouns', String(count)],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`building with ${count} synthetic nouns failed: ${r.stderr}`);
  return join(dir, 'bin', 'ctl.js');
}

export interface Row {
  what: string;
  value: string;
  baseline: string;
  ratio: number;
  budget: string;
}

/** A row as a line of the Markdown table the bench prints. */
export const markdownRow = (r: Row) =>
  `| ${r.what} | ${r.value} | ${r.baseline} | ${r.ratio.toFixed(2)}x | ${r.budget} |`;

/** `ctl --help`, a TAB and a noun's help against `node -e ''`, and the same with 40 more nouns in the catalogue. */
export function startupRows(runs = RUNS): { rows: Row[]; note: string } {
  const work = mkdtempSync(join(tmpdir(), 'ctl-bench-start-'));
  try {
    const ctl = join(root, 'bin', 'ctl.js');
    const more = buildWithSyntheticNouns(join(work, 'synthetic'), 40);
    const commands: Array<[string, string[], string]> = [
      ['`node -e ""`', ['-e', ''], ''],
      ['`ctl --help`', [ctl, '--help'], '≤ 1.3x'],
      ['TAB completion (`ctl __complete ident`)', [ctl, '__complete', 'ident'], '≤ 1.3x'],
      ['`ctl identity --help`', [ctl, 'identity', '--help'], 'none set'],
      ['`ctl --help`, 40 more nouns', [more, '--help'], '≤ 1.3x'],
      ['TAB completion, 40 more nouns', [more, '__complete', 'ident'], '≤ 1.3x'],
    ];
    // A cache directory of its own: each command's first (untimed) run makes the code cache the timed runs use,
    // as a user's first run does, whatever caches earlier builds left.
    const env = { ...process.env, XDG_CACHE_HOME: join(work, 'cache') };
    const timed = startupTimes(
      commands.map(([, args]) => args),
      runs,
      env,
    );
    const { medians, cpu } = timed;
    const cpuNote = (i: number) =>
      cpu ? `; CPU ${fmt(cpu[i])} vs ${fmt(cpu[0])}, ${(cpu[i] / cpu[0]).toFixed(2)}x` : '';
    const rows = commands.slice(1).map(([what, , budget], j) => {
      const i = j + 1;
      return {
        what,
        value: `${fmt(medians[i])}${cpuNote(i)}`,
        baseline: `${fmt(medians[0])} (\`node -e ""\`)`,
        ratio: medians[i] / medians[0],
        budget,
      };
    });
    return { rows, note: unsetNote(timed) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const runs = process.argv[2] ? Number(process.argv[2]) : RUNS;
  console.log(`\n${runs} runs of each, alternated; Node ${process.version}.\n`);
  console.log('| measurement | value | baseline | ratio | budget |');
  console.log('|---|---|---|---|---|');
  const { rows, note } = startupRows(runs);
  for (const r of rows) console.log(markdownRow(r));
  if (note) console.log(`\n${note}`);
}
