// Access decisions at scale (issue 8): a network of 10,000 identities, 10,000 services, 1,000 service policies,
// 100 edge routers and 100 edge router policies (bench/seed-network.ts) in each of its shapes (mixed: about 2% `#all`
// role sets; broad: one service policy in ten gives `#all` identities about 100 services), served by a controller
// process on each store. Timed over HTTP from this process: an identity's services, the client's own services
// (limit 100), policy create/update/delete, and changing an identity's attributes, each with everything it changes
// in the store.
// Also the controller's peak resident memory. Prints a Markdown table; nothing passes or fails.
//
//   node --import tsx bench/access.ts [--no-postgres] [--shape mixed|broad]   (also part of `npm run bench`)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { startControllerProcess, BENCH_ADMIN_PASSWORD } from './controller-process.js';
import { freshDatabase, startCluster } from './pg-database.js';
import { fmt, median } from './stats.js';

const root = new URL('..', import.meta.url).pathname;
/** The network shapes bench/seed-network.ts makes. */
const SHAPES = ['mixed', 'broad'];

interface Timing {
  what: string;
  p50: number;
  p95: number;
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];

/** Seeds, starts a controller on the store, and times each operation; returns the rows and the peak RSS. */
async function measureStore(
  label: string,
  shape: string,
  dataDir: string,
  storeUrl?: string,
): Promise<{ label: string; seedSeconds: number; rows: Timing[]; peakMb: number }> {
  const seed = [join(root, 'bench', 'seed-network.ts'), storeUrl ?? join(dataDir, 'ctl.db'), shape];
  const seeded = spawnSync(process.execPath, ['--import', 'tsx', ...seed], { cwd: root, encoding: 'utf8' });
  if (seeded.status !== 0) throw new Error(`seeding (${label}) failed: ${seeded.stderr}`);
  const seedSeconds = (JSON.parse(seeded.stdout) as { seconds: number }).seconds;
  // One client measures the latency of hundreds of client calls in a row: the request budget of a client (50 at
  // once, 10 a second by default) is not what is measured here.
  const controller = await startControllerProcess(dataDir, {
    storeUrl,
    args: ['--client-rate-limit', '1000000/1000000'],
  });
  const dispatcher = new Agent({ connect: { ca: controller.caBundlePem } });
  const call = async (method: string, path: string, token: string, body?: unknown, api = 'management') => {
    const r = await request(`${controller.url}/edge/${api}/v1${path}`, {
      method: method as 'GET',
      dispatcher,
      headers: { 'zt-session': token, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await r.body.json()) as { data: any };
    if (r.statusCode >= 300)
      throw new Error(`${method} ${path} (${label}) answered ${r.statusCode}: ${JSON.stringify(json)}`);
    return json.data;
  };
  const login = async (username: string, password: string) =>
    (await call('POST', '/authenticate?method=password', '', { username, password })).token as string;
  try {
    const admin = await login('admin', BENCH_ADMIN_PASSWORD);
    // A user whose attributes some policies select, to ask the client API as.
    const user = (
      await call('POST', '/identities', admin, {
        name: 'bench-user',
        type: 'User',
        isAdmin: false,
        roleAttributes: ['team-7', 'team-42'],
      })
    ).id as string;
    await call('POST', '/authenticators', admin, {
      method: 'updb',
      identityId: user,
      username: 'bench-user',
      password: 'bench-user-pw',
    });
    const userToken = await login('bench-user', 'bench-user-pw');
    const identities = ((await call('GET', '/identities?limit=500', admin)) as { id: string }[]).map((i) => i.id);
    const services = ((await call('GET', '/services?limit=500', admin)) as { id: string }[]).map((s) => s.id);

    const timed = async (what: string, runs: number, fn: (i: number) => Promise<unknown>): Promise<Timing> => {
      const WARM_UP = 5;
      for (let i = 0; i < WARM_UP; i++) await fn(i);
      const times: number[] = [];
      for (let i = WARM_UP; i < WARM_UP + runs; i++) {
        const start = process.hrtime.bigint();
        await fn(i);
        times.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
      return { what, p50: median(times), p95: percentile(times, 0.95) };
    };
    const rows: Timing[] = [];
    rows.push(
      await timed('GET /identities/{id}/services (limit 100)', 200, (i) =>
        call('GET', `/identities/${identities[i % identities.length]}/services?limit=100`, admin),
      ),
    );
    rows.push(
      await timed('GET /identities/{id}/services?policyType=dial', 200, (i) =>
        call('GET', `/identities/${identities[(i * 7) % identities.length]}/services?policyType=dial&limit=100`, admin),
      ),
    );
    rows.push(
      await timed('client GET /services (limit 100)', 200, () =>
        call('GET', '/services?limit=100', userToken, undefined, 'client'),
      ),
    );
    rows.push(
      await timed('GET /services/{id}/identities (limit 100)', 200, (i) =>
        call('GET', `/services/${services[i % services.length]}/identities?limit=100`, admin),
      ),
    );
    rows.push(
      await timed('GET /identities/{id}/edge-routers', 200, (i) =>
        call('GET', `/identities/${identities[i % identities.length]}/edge-routers`, admin),
      ),
    );
    const created: string[] = [];
    const policy = (i: number) => ({
      name: `bench-policy-${i}-${Date.now()}`,
      type: 'Dial',
      semantic: i % 2 ? 'AllOf' : 'AnyOf',
      identityRoles: [`#team-${i % 200}`, `#team-${(i * 3) % 200}`],
      serviceRoles: [`#app-${i % 200}`, `@${services[i % services.length]}`],
    });
    rows.push(
      await timed('create a service policy (#attr and @id roles)', 50, async (i) =>
        created.push((await call('POST', '/service-policies', admin, policy(i))).id),
      ),
    );
    rows.push(
      await timed('update its roles (PATCH)', 50, (i) =>
        call('PATCH', `/service-policies/${created[i]}`, admin, {
          identityRoles: [`#team-${(i + 50) % 200}`],
          serviceRoles: ['#all'],
        }),
      ),
    );
    rows.push(
      await timed('delete a service policy', 50, (i) => call('DELETE', `/service-policies/${created[i]}`, admin)),
    );
    rows.push(
      await timed("change an identity's role attributes", 100, (i) =>
        call('PATCH', `/identities/${identities[i % identities.length]}`, admin, {
          roleAttributes: [`team-${i % 200}`, `team-${(i * 11) % 200}`],
        }),
      ),
    );
    const status = readFileSync(`/proc/${controller.pid}/status`, 'utf8');
    const peakMb = Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
    return { label, seedSeconds, rows, peakMb };
  } finally {
    controller.stop();
    await dispatcher.close();
  }
}

export async function accessScale(opts: { postgres: boolean; shapes?: readonly string[] }): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'ctl-bench-access-'));
  const shapes = opts.shapes ?? SHAPES;
  const results = [];
  const cluster = opts.postgres ? startCluster(join(work, 'pg-cluster.json')) : undefined;
  if (cluster && 'unavailable' in cluster) console.error(`PostgreSQL not measured: ${cluster.unavailable}`);
  try {
    for (const shape of shapes) {
      results.push(await measureStore(`SQLite, ${shape}`, shape, join(work, `sqlite-${shape}`)));
      if (cluster && !('unavailable' in cluster)) {
        const database = await freshDatabase(cluster.url);
        results.push(await measureStore(`PostgreSQL, ${shape}`, shape, join(work, `postgres-${shape}`), database));
      }
    }
  } finally {
    if (cluster && !('unavailable' in cluster)) cluster.stop();
  }
  const title =
    '10,000 identities, 10,000 services, 1,000 service policies, 100 edge routers, 100 + 100 router policies';
  console.log(`\nAccess decisions at scale: ${title}\n`);
  console.log(`| measurement | ${results.map((r) => `${r.label} p50 (p95)`).join(' | ')} |`);
  console.log(`|---|${results.map(() => '---').join('|')}|`);
  console.log(
    '| seeding the network (through the store, one transaction per kind) | ' +
      `${results.map((r) => `${r.seedSeconds.toFixed(1)} s`).join(' | ')} |`,
  );
  for (const [i, row] of results[0].rows.entries()) {
    console.log(`| ${row.what} | ${results.map((r) => `${fmt(r.rows[i].p50)} (${fmt(r.rows[i].p95)})`).join(' | ')} |`);
  }
  console.log(`| controller peak resident memory | ${results.map((r) => `${r.peakMb.toFixed(0)} MB`).join(' | ')} |`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const options = { 'no-postgres': { type: 'boolean' }, shape: { type: 'string', multiple: true } } as const;
  const { values } = parseArgs({ options });
  await accessScale({ postgres: !values['no-postgres'], shapes: values.shape });
}
