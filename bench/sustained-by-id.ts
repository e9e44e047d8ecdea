// An authenticated GET /identities/{id} under sustained load: one controller process (SQLite or PostgreSQL), tens
// of thousands of requests in one go, and the controller's CPU time per request. `npm run bench` measures rounds of
// 4,000 alternated with the other servers', the controller idle in between; this shows what a server busy the whole
// time pays, garbage collection of what outlives the young generation included. It asserts nothing.
//
// Usage: node --import tsx bench/sustained-by-id.ts [REQUESTS] [--root DIR] [--concurrency N] [--identities N]
//          [--spread N] [--cpu-profile DIR] [--postgres URL]
//   REQUESTS       measured requests (default 40000), after 2,000 untimed
//   --root         the checkout whose build to run (default: this one), e.g. a baseline made by bench/baseline.ts;
//                  run the two one after the other, several times, and compare lines of the same sitting
//   --concurrency  requests kept in flight (default 16, as `npm run bench`)
//   --identities   identities seeded first with bench/seed.ts, as `npm run bench` does (default none); the one
//                  asked for is then identity-500, as there
//   --spread       ask for this many identities in turn (of those seeded) instead of the one: more than the
//                  controller keeps answers of (1,000) and each answer is read from the store
//   --cpu-profile  a directory where the controller writes its CPU profile when it stops (bench/profile-top.ts)
//   --postgres     a PostgreSQL server (e.g. what `node scripts/pg-cluster.mjs start` prints): the controller's store
//                  is a new database made on it for the run, instead of SQLite
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { adminApi } from './admin-api.js';
import { startControllerProcess } from './controller-process.js';
import { freshDatabase } from './pg-database.js';
import { throughput } from './throughput.js';

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    root: { type: 'string' },
    concurrency: { type: 'string', default: '16' },
    identities: { type: 'string', default: '0' },
    spread: { type: 'string', default: '1' },
    'cpu-profile': { type: 'string' },
    postgres: { type: 'string' },
  },
});
const requests = Number(positionals[0] ?? 40_000);
const concurrency = Number(flags.concurrency);
const dir = mkdtempSync(path.join(os.tmpdir(), 'ctl-bench-sustained-'));
const seeded = Number(flags.identities);
const storeUrl = flags.postgres ? await freshDatabase(flags.postgres) : undefined;
if (seeded > 500) {
  const checkout = flags.root ?? path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
  const seed = new URL('./seed.ts', import.meta.url).pathname;
  const args = ['--import', 'tsx', seed, checkout, storeUrl ?? path.join(dir, 'data', 'ctl.db'), String(seeded)];
  const seeding = spawnSync(process.execPath, args, { encoding: 'utf8' });
  if (seeding.status !== 0) throw new Error(`seeding failed: ${seeding.stderr}`);
}
const ctl = await startControllerProcess(path.join(dir, 'data'), {
  root: flags.root,
  storeUrl,
  cpuProfileDir: flags['cpu-profile'],
});
try {
  const api = await adminApi(ctl);
  const filter = encodeURIComponent('name = "identity-500"');
  const { id } =
    seeded > 500
      ? (await api.call('GET', `/identities?filter=${filter}`))[0]
      : await api.call('POST', '/identities', { name: 'sustained', type: 'Default', isAdmin: false });
  const load = { ca: ctl.caBundlePem, headers: { 'zt-session': api.token }, concurrency };
  const spread = Number(flags.spread);
  const others: { id: string }[] = [];
  for (let offset = 0; spread > 1 && offset < spread; offset += 500) {
    others.push(...(await api.call('GET', `/identities?limit=${Math.min(spread - offset, 500)}&offset=${offset}`)));
  }
  const asked = Math.max(others.length, 1);
  const url = spread > 1 ? others.map((o) => `${api.base}/identities/${o.id}`) : `${api.base}/identities/${id}`;
  await api.close();
  await throughput(url, { ...load, total: 2_000 });
  const before = ctl.cpuSeconds();
  const rate = await throughput(url, { ...load, total: requests });
  const perRequest = ((ctl.cpuSeconds() - before) / requests) * 1e6;
  const loadAverage = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  console.log(
    `${flags.root ?? 'this checkout'}: ${perRequest.toFixed(1)} µs of the controller's CPU per GET by id, ` +
      `${rate.toFixed(0)} req/s, ${requests} requests ${concurrency} deep, ${asked} identities, ` +
      `${storeUrl ? 'PostgreSQL' : 'SQLite'}; ` +
      `load average ${loadAverage}`,
  );
} finally {
  ctl.stop();
  await new Promise((resolve) => setTimeout(resolve, 500));
  rmSync(dir, { recursive: true, force: true });
}
