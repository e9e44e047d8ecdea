// What a client's filters cost the controller in memory: the controller's RSS (in its own process, as users run
// it) before and after COUNT structurally distinct filters (each a different SQL statement), each listed once.
//
//   node --import tsx bench/filter-memory.ts [COUNT] [--root DIR] [--store postgres://...] [--json]
//
// `--root` runs another checkout's build (default this one, built); `--store` keeps the data in PostgreSQL.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { startControllerProcess, BENCH_ADMIN_PASSWORD } from './controller-process.js';

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: { root: { type: 'string' }, store: { type: 'string' }, json: { type: 'boolean' } },
});
const COUNT = Number(positionals[0] ?? 4000);
/** Conditions that pick the shape: 2^12 = 4,096 distinct filters (`=` or `!=` each), then a long common tail. */
const SELECTORS = 12;
const TAIL = 60;

/** Filter `i`: its bits choose `=` or `!=` in the first conditions, so every filter is its own SQL statement. */
export function distinctFilter(i: number): string {
  const fields = ['name', 'externalId', 'authPolicyId', 'type'];
  const selector = (bit: number) => `${fields[bit % fields.length]} ${(i >> bit) & 1 ? '!=' : '='} "s${bit}"`;
  const selectors = Array.from({ length: SELECTORS }, (_, bit) => selector(bit));
  const filler = (j: number) => (j % 2 ? `anyOf(roleAttributes) = "r${j}"` : `name contains "t${j}"`);
  const tail = Array.from({ length: TAIL }, (_, j) => filler(j));
  return `(${selectors.join(' and ')}) or (${tail.join(' or ')})`;
}

/** Resident set size of a process, in MB (Linux). */
function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.replace(/\D+/g, '')) / 1024;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ctl-bench-filters-'));
  const controller = await startControllerProcess(join(dataDir, 'data'), { root: flags.root, storeUrl: flags.store });
  const dispatcher = new Agent({ connect: { ca: controller.caBundlePem } });
  try {
    const auth = await request(`${controller.url}/edge/management/v1/authenticate?method=password`, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: BENCH_ADMIN_PASSWORD }),
    });
    const headers = { 'zt-session': ((await auth.body.json()) as { data: { token: string } }).data.token };
    const list = async (filter: string) => {
      const url = `${controller.url}/edge/management/v1/identities?filter=${encodeURIComponent(filter)}`;
      const r = await request(url, { headers, dispatcher });
      await r.body.dump();
      if (r.statusCode !== 200) throw new Error(`GET /identities?filter=... -> ${r.statusCode}`);
    };
    // Warm: the controller's own statements and one list, so that "before" is a running controller.
    for (let i = 0; i < 20; i++) await list('name = "warm"');
    const before = rssMb(controller.pid);
    for (let i = 0; i < COUNT; i++) await list(distinctFilter(i));
    const after = rssMb(controller.pid);
    const [rssBeforeMb, rssAfterMb, growthMb] = [before, after, after - before].map(Math.round);
    const result = { filters: COUNT, rssBeforeMb, rssAfterMb, growthMb };
    if (flags.json) console.log(JSON.stringify(result));
    else console.log(`${COUNT} distinct filters: RSS ${rssBeforeMb} MB -> ${rssAfterMb} MB (+${growthMb} MB)`);
  } finally {
    await dispatcher.close();
    controller.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
