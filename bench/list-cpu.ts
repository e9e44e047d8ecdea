// The controller's CPU time per list of 100 entities whose presenters add computed fields to the generic read
// model (services, edge routers), against another commit's build measured alternately in the same run. One
// controller process per round (SQLite, or a new database on the PostgreSQL server given), 100 of each kind created
// through the API, 400 lists of each timed from /proc after 50 untimed. Prints one line per round; nothing passes or
// fails.
//
//   node --import tsx bench/list-cpu.ts BASELINE_COMMIT [ROUNDS] [--postgres URL]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { adminApi } from './admin-api.js';
import { prepareBaseline } from './baseline.js';
import { startControllerProcess } from './controller-process.js';
import { freshDatabase } from './pg-database.js';

const KINDS = [
  { plural: 'services', body: (i: number) => ({ name: `svc-${i}`, encryptionRequired: true, roleAttributes: ['a'] }) },
  { plural: 'edge-routers', body: (i: number) => ({ name: `er-${i}`, roleAttributes: ['a'] }) },
];
const { values: flags, positionals } = parseArgs({ allowPositionals: true, options: { postgres: { type: 'string' } } });
const [commit, roundsArg] = positionals;
if (!commit) {
  console.error('usage: node --import tsx bench/list-cpu.ts BASELINE_COMMIT [ROUNDS] [--postgres URL]');
  process.exit(2);
}

/** CPU µs per list of 100 for each kind, on a fresh controller of the checkout at `root` (this one if undefined). */
async function measure(root: string | undefined): Promise<number[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ctl-bench-list-'));
  const storeUrl = flags.postgres ? await freshDatabase(flags.postgres) : undefined;
  const ctl = await startControllerProcess(path.join(dir, 'data'), { root, storeUrl });
  let api: Awaited<ReturnType<typeof adminApi>> | undefined;
  try {
    const admin = await adminApi(ctl);
    api = admin;
    const perList: number[] = [];
    for (const kind of KINDS) {
      for (let i = 0; i < 100; i++) await admin.call('POST', `/${kind.plural}`, kind.body(i));
      const list = () => admin.call('GET', `/${kind.plural}?limit=100`);
      for (let i = 0; i < 50; i++) await list();
      const before = ctl.cpuSeconds();
      for (let i = 0; i < 400; i++) await list();
      perList.push(((ctl.cpuSeconds() - before) / 400) * 1e6);
    }
    return perList;
  } finally {
    await api?.close();
    ctl.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const baseline = prepareBaseline(commit);
const line = (values: number[]) => values.map((v, i) => `${KINDS[i].plural} ${v.toFixed(0)} µs`).join(', ');
for (let round = 0; round < Number(roundsArg ?? 3); round++) {
  const before = await measure(baseline);
  const now = await measure(undefined);
  console.log(`${commit}: ${line(before)}; this checkout: ${line(now)}; load ${os.loadavg()[0].toFixed(1)}`);
}
