import { spawnSync } from 'node:child_process';
import { median, timeRuns } from './stats.js';

const RUNS = 15;

/** Median wall time of a command, spawned fresh each run (what a user waits for). */
export async function commandMedian(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  spawnSync(process.execPath, args, { env, stdio: 'ignore' }); // warm the file cache
  return median(
    await timeRuns(RUNS, () => {
      const r = spawnSync(process.execPath, args, { env, stdio: 'ignore' });
      if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}`);
    }),
  );
}
