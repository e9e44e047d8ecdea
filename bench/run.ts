// `npm run bench`: start-up of the CLI, controller throughput and filtered-list latency, each as a ratio to a
// baseline measured in the same run on the same machine. Prints a Markdown report (docs/performance.md keeps
// the latest one with its context). Numbers only: nothing here passes or fails.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { startControllerProcess } from './controller-process.js';
import { Store } from '../src/controller/store/store.js';
import { startupRows, startupTimes } from './cli-start.js';
import { fmt, median, timeRuns } from './stats.js';
import { throughput } from './throughput.js';

const root = new URL('..', import.meta.url).pathname;
const ctl = join(root, 'bin', 'ctl.js');
const work = mkdtempSync(join(tmpdir(), 'ctl-bench-'));
const rows: string[][] = [];
const report = (what: string, value: string, baseline: string, ratio: number, budget: string) =>
  rows.push([what, value, baseline, `${ratio.toFixed(2)}x`, budget]);

async function login(url: string, ca: string): Promise<string> {
  const dispatcher = new Agent({ connect: { ca } });
  const r = await request(`${url}/edge/management/v1/authenticate?method=password`, {
    method: 'POST',
    dispatcher,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: 'bench-admin' }),
  });
  const body = (await r.body.json()) as { data: { token: string } };
  await dispatcher.close();
  return body.data.token;
}

/** Fills a fresh data directory with identities before the controller opens it (one transaction). */
async function seedIdentities(dataDir: string, count: number): Promise<void> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const store = await Store.open({ sqlite: join(dataDir, 'ctl.db') });
  const repo = store.repo('identity');
  const now = new Date().toISOString();
  const attrs = ['sales', 'emea', 'finance', 'apac', 'ops'];
  await store.tx(async () => {
    for (let i = 0; i < count; i++) {
      await repo.insert({ name: `identity-${i}`, type: 'Default', isAdmin: false, roleAttributes: [attrs[i % 5], attrs[(i * 7) % 5]] }, { now });
    }
  });
  await store.close();
}

async function main() {
  // 1. CLI start-up against a bare node process, timed from a small helper process (cli-start.ts says why).
  for (const r of startupRows()) report(r.what, r.value, r.baseline, r.ratio, r.budget);

  // 2. A controller with 100,000 identities.
  const dataDir = join(work, 'controller');
  const seedStart = Date.now();
  await seedIdentities(dataDir, 100_000);
  const seedSeconds = (Date.now() - seedStart) / 1000;
  // The controller runs in its own process, as users run it: the CLI runs below block this one.
  const controller = await startControllerProcess(dataDir);
  const token = await login(controller.url, controller.caBundlePem);
  const headers = { 'zt-session': token };

  const configDir = join(work, 'config');
  const env = { ...process.env, CTL_CONFIG_DIR: configDir, CI: 'true', NO_COLOR: '1' };
  const { spawnSync } = await import('node:child_process');
  const caFile = join(dataDir, 'ca-bundle.pem');
  const loggedIn = spawnSync(process.execPath, [ctl, 'login', controller.url, '-u', 'admin', '--password-stdin', '--ca', caFile], {
    env,
    input: 'bench-admin\n',
  });
  if (loggedIn.status !== 0) throw new Error(`ctl login failed: ${loggedIn.stderr}`);
  const { medians: [nodeBare, list] } = startupTimes([['-e', ''], [ctl, 'identity', 'list', '--limit', '10']], 15, env);
  report('`ctl identity list` (local controller)', fmt(list), fmt(nodeBare), list / nodeBare, '≤ 4x');

  // 3. Authenticated GET by id against a bare node:https hello world with the same certificate.
  const admin = (await (await request(`${controller.url}/edge/management/v1/identities?filter=${encodeURIComponent('name = "identity-500"')}`, { headers, dispatcher: new Agent({ connect: { ca: controller.caBundlePem } }) })).body.json()) as { data: { id: string }[] };
  const byId = `${controller.url}/edge/management/v1/identities/${admin.data[0].id}`;
  const pkiDir = join(dataDir, 'pki');
  const bare = createServer(
    { key: readFileSync(join(pkiDir, 'server.key.pem')), cert: readFileSync(join(pkiDir, 'server.cert.pem'), 'utf8') + readFileSync(join(pkiDir, 'intermediate.cert.pem'), 'utf8') },
    (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end('{"data":{"hello":"world"},"meta":{}}');
    },
  );
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
  const bareUrl = `https://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
  const load = { ca: controller.caBundlePem, total: 4000, concurrency: 16 };
  const bareRps = await throughput(bareUrl, load);
  const ctlRps = await throughput(byId, { ...load, headers });
  report('authenticated GET /identities/{id}', `${ctlRps.toFixed(0)} req/s`, `${bareRps.toFixed(0)} req/s`, ctlRps / bareRps, '≥ 0.40x bare `node:https`');
  bare.close();

  // 4. Filtered lists over 100,000 identities, through HTTP (what a client waits for).
  const dispatcher = new Agent({ connect: { ca: controller.caBundlePem } });
  const timedGet = async (path: string, runs: number) =>
    median(
      await timeRuns(runs, async () => {
        const r = await request(`${controller.url}${path}`, { headers, dispatcher });
        await r.body.arrayBuffer();
        if (r.statusCode !== 200) throw new Error(`GET ${path} answered ${r.statusCode}`);
      }),
    );
  const listPath = (filter: string) => `/edge/management/v1/identities?filter=${encodeURIComponent(filter)}`;
  // Baseline: the round trip of a trivial request on the same connection.
  const trivial = await timedGet('/edge/management/v1/version', 50);
  const eq = await timedGet(listPath('name = "identity-54321"'), 50);
  const contains = await timedGet(listPath('name contains "4321"'), 20);
  const anyOf = await timedGet(listPath('anyOf(roleAttributes) = "finance"'), 20);
  report('filter `name = "identity-54321"` (100k identities)', fmt(eq), `${fmt(trivial)} (GET /version)`, eq / trivial, '< 5 ms median');
  report('filter `name contains "4321"` (100k identities)', fmt(contains), `${fmt(trivial)} (GET /version)`, contains / trivial, '< 50 ms median');
  report('filter `anyOf(roleAttributes) = "finance"` (100k)', fmt(anyOf), `${fmt(trivial)} (GET /version)`, anyOf / trivial, 'none set');
  await dispatcher.close();
  controller.stop();

  console.log(`\nMachine: ${process.platform} ${process.arch}, Node ${process.version}; seeding 100,000 identities took ${seedSeconds.toFixed(1)} s.\n`);
  console.log('| measurement | value | baseline | ratio | budget |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
}

try {
  await main();
} finally {
  rmSync(work, { recursive: true, force: true });
}
