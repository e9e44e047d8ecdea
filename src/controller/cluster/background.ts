import type { Store } from '../store/store.js';

/** Work every database needs done now and then, by one of its controllers. */
export interface BackgroundTask {
  /** What the log calls it when a run fails. */
  name: string;
  intervalMs: number;
  /** What it answers (such as how many rows it changed) is not used here. */
  run(): Promise<unknown>;
}

/**
 * Runs each task on its interval, but only while this controller leads the database's background work
 * (Store.leadsBackgroundWork): controllers sharing a database would otherwise each sweep the same rows. A controller
 * that does not lead asks again at each of its ticks, so when the leader stops or dies another takes over within a
 * task's interval. The log says when this controller starts or stops leading.
 */
export function runInTurn(
  store: Pick<Store, 'leadsBackgroundWork'>,
  tasks: readonly BackgroundTask[],
  log: (line: string) => void,
): { stop(): void } {
  let leading = false;
  const leads = async (): Promise<boolean> => {
    const now = await store.leadsBackgroundWork();
    if (now !== leading) {
      log(
        now
          ? `background: this controller runs the database's ${tasks.map((t) => t.name).join(', ')}`
          : 'background: this controller no longer runs the background work (another controller may)',
      );
    }
    leading = now;
    return now;
  };
  const tick = async (task: BackgroundTask) => {
    try {
      if (await leads()) await task.run();
    } catch (err) {
      log(`${task.name} failed: ${err}`);
    }
  };
  // Asked once at start, so the log tells at once which controller runs the work.
  void leads().catch((err) => log(`background: could not tell whether this controller leads: ${err}`));
  const timers = tasks.map((task) => setInterval(() => void tick(task), task.intervalMs));
  for (const timer of timers) timer.unref();
  return { stop: () => timers.forEach(clearInterval) };
}
