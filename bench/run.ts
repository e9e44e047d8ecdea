// `npm run bench`: start-up of the CLI, then the controller on each store side by side (SQLite and PostgreSQL,
// in the same run): seeding, `ctl identity list`, authenticated GET by id, filtered lists, and login/list latency.
// Each figure is also given against a baseline measured in the same run on the same machine. Prints Markdown
// tables (docs/performance.md keeps the latest ones with their context). Numbers only: nothing passes or fails.
//
//   npm run bench                              this checkout, SQLite and PostgreSQL (when its binaries are installed)
//   npm run bench -- --baseline bc59173        and the same SQLite measurements on that commit's build, alternated
//   npm run bench -- --baseline-postgres ...   each baseline on PostgreSQL too (a store-side change measured there)
//   npm run bench -- --no-startup ...          the controller tables only
//   npm run bench -- --no-access ...           without access decisions at scale (bench/access.ts, ~2 minutes)
//   npm run bench -- --no-writes ...           without writes under 8 concurrent writers (bench/concurrent-writes.ts)
//   npm run bench -- --no-cluster ...          without one controller against two on one database (bench/cluster.ts)
//   npm run bench -- --throughput-only ...     only authenticated GET by id against the bare server (the request path)
//   npm run bench -- --cpu-profile DIR ...     each controller writes its CPU profile (node --cpu-prof) there on stop
//   npm run bench -- --store-only ...          seeding and the filtered lists only (add --no-startup --no-access
//                                              --no-writes for the store's rows alone)
// `--baseline` repeats (one column each); CTL_BENCH_BASELINE=bc59173[,...] does the same. The older build is made
// by bench/baseline.ts in the temporary directory (git archive, node_modules copied, npm run build).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { KEPT_ANSWERS } from '../src/controller/model/kept-answers.js';
import { accessScale } from './access.js';
import { type BareAnswer, SMALLEST_ANSWER, startBareServer } from './bare-server.js';
import { prepareBaseline } from './baseline.js';
import { clusterBench } from './cluster.js';
import { concurrentWrites } from './concurrent-writes.js';
import { type ControllerProcess, startControllerProcess, BENCH_ADMIN_PASSWORD } from './controller-process.js';
import { markdownRow, startupRows, startupTimes, type TimedCommand, unsetNote } from './cli-start.js';
import { freshDatabase, type PgCluster, startCluster } from './pg-database.js';
import { fmt, median } from './stats.js';
import { throughput } from './throughput.js';

const root = new URL('..', import.meta.url).pathname;
const { values: flags } = parseArgs({
  options: {
    baseline: { type: 'string', multiple: true },
    'baseline-postgres': { type: 'boolean' },
    'no-startup': { type: 'boolean' },
    'no-postgres': { type: 'boolean' },
    'no-access': { type: 'boolean' },
    'no-writes': { type: 'boolean' },
    'no-cluster': { type: 'boolean' },
    'throughput-only': { type: 'boolean' },
    'cpu-profile': { type: 'string' },
    'store-only': { type: 'boolean' },
    identities: { type: 'string', default: '100000' },
  },
});
const baselines = flags.baseline ?? (process.env.CTL_BENCH_BASELINE ?? '').split(',').filter(Boolean);
const IDENTITIES = Number(flags.identities);
const throughputOnly = flags['throughput-only'] === true;
const work = mkdtempSync(join(tmpdir(), 'ctl-bench-'));

/** One controller under test: a build (this checkout or an older one) over one store. */
interface Target {
  label: string;
  root: string;
  /** The database this target's controller uses, and the server it is on (for more fresh databases). */
  postgres?: string;
  pgServer?: string;
  dataDir: string;
  configDir: string;
  seedSeconds: number;
  controller: ControllerProcess;
  headers: Record<string, string>;
  dispatcher: Agent;
  byIdUrl: string;
  /**
   * More identities than the controller keeps answers of (KEPT_ANSWERS), asked for in turn: every answer is read from
   * the store, the least recently asked having gone before it is asked again; reads gathered by key share no row.
   */
  byIdUrls: string[];
}

function seed(checkout: string, location: string): number {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(root, 'bench', 'seed.ts'), checkout, location, String(IDENTITIES)],
    { cwd: root, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`seeding ${location} failed: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { seconds: number }).seconds;
}

async function login(url: string, ca: string): Promise<string> {
  const dispatcher = new Agent({ connect: { ca } });
  const r = await request(`${url}/edge/management/v1/authenticate?method=password`, {
    method: 'POST',
    dispatcher,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: BENCH_ADMIN_PASSWORD }),
  });
  const body = (await r.body.json()) as { data: { token: string } };
  await dispatcher.close();
  return body.data.token;
}

// The CLI's code caches in the bench's own directory: each build's first run makes them, as a user's first does.
const cliEnv = (configDir: string) => ({
  CTL_CONFIG_DIR: configDir,
  CI: 'true',
  NO_COLOR: '1',
  XDG_CACHE_HOME: join(work, 'cli-cache'),
});

/** A copy of a logged-in profile directory where no TLS session can be kept: its file is a directory. */
function unkeptSessions(configDir: string): string {
  const copy = `${configDir}-no-tls-sessions`;
  cpSync(configDir, copy, { recursive: true });
  rmSync(join(copy, 'tls-sessions.json'), { force: true });
  mkdirSync(join(copy, 'tls-sessions.json'));
  return copy;
}

async function startTarget(key: string, label: string, checkout: string, pgServer?: string): Promise<Target> {
  const postgres = pgServer ? await freshDatabase(pgServer) : undefined;
  const dataDir = join(work, key);
  const seedSeconds = seed(checkout, postgres ?? join(dataDir, 'ctl.db'));
  // The controller runs in its own process, as users run it: the CLI runs below block this one.
  const cpuProfileDir = flags['cpu-profile'];
  const controller = await startControllerProcess(dataDir, { root: checkout, storeUrl: postgres, cpuProfileDir });
  const headers = { 'zt-session': await login(controller.url, controller.caBundlePem) };
  const configDir = join(work, `${key}-config`);
  const loggedIn = spawnSync(
    process.execPath,
    [
      join(checkout, 'bin', 'ctl.js'),
      'login',
      controller.url,
      '-u',
      'admin',
      '--password-stdin',
      '--ca',
      join(dataDir, 'ca-bundle.pem'),
    ],
    {
      env: { ...process.env, ...cliEnv(configDir) },
      input: `${BENCH_ADMIN_PASSWORD}\n`,
    },
  );
  if (loggedIn.status !== 0) throw new Error(`ctl login (${label}) failed: ${loggedIn.stderr}`);
  const dispatcher = new Agent({ connect: { ca: controller.caBundlePem } });
  const found = (await (
    await request(
      `${controller.url}/edge/management/v1/identities?filter=${encodeURIComponent('name = "identity-500"')}`,
      { headers, dispatcher },
    )
  ).body.json()) as { data: { id: string }[] };
  const byIdUrl = `${controller.url}/edge/management/v1/identities/${found.data[0].id}`;
  const byIdUrls: string[] = [];
  for (let offset = 0; offset < 2 * KEPT_ANSWERS; offset += 500) {
    const page = `${controller.url}/edge/management/v1/identities?limit=500&offset=${offset}`;
    const some = (await (await request(page, { headers, dispatcher })).body.json()) as { data: { id: string }[] };
    byIdUrls.push(...some.data.map((identity) => `${controller.url}/edge/management/v1/identities/${identity.id}`));
  }
  if (byIdUrls.length <= KEPT_ANSWERS) throw new Error(`--identities must be above ${KEPT_ANSWERS}`);
  return {
    label,
    root: checkout,
    postgres,
    pgServer,
    dataDir,
    configDir,
    seedSeconds,
    controller,
    headers,
    dispatcher,
    byIdUrl,
    byIdUrls,
  };
}

/** A row of a side-by-side table: one value per target, the first being this checkout on SQLite. */
interface Row {
  what: string;
  values: number[];
  unit: 'ms' | 's' | 'req/s' | 'MB' | 'µs';
  /** What each value is measured against (same order), shown as "value (Nx baseline)". */
  against?: number[];
}

const show = (v: number, unit: Row['unit']) =>
  unit === 'ms' ? fmt(v) : unit === 's' ? `${v.toFixed(1)} s` : `${v.toFixed(0)} ${unit}`;

function printTable(title: string, targets: Target[], rows: Row[]): void {
  const pg = targets.findIndex((t) => t.postgres && t.root === root);
  const olds = targets.map((_target, i) => i).filter((i) => i > 0 && targets[i].root !== root);
  // A baseline is compared with this checkout on the same store.
  const now = (i: number) => (targets[i].postgres ? pg : 0);
  const head = ['measurement', targets[0].label];
  if (pg >= 0) head.push(targets[pg].label, 'PostgreSQL ÷ SQLite');
  for (const i of olds) head.push(targets[i].label, `${targets[now(i)].label} now ÷ ${targets[i].label}`);
  console.log(`\n${title}\n`);
  console.log(`| ${head.join(' | ')} |`);
  console.log(`|${head.map(() => '---').join('|')}|`);
  for (const row of rows) {
    const cell = (i: number) =>
      show(row.values[i], row.unit) + (row.against ? ` (${(row.values[i] / row.against[i]).toFixed(2)}x)` : '');
    const cells = [row.what, cell(0)];
    if (pg >= 0) cells.push(cell(pg), `${(row.values[pg] / row.values[0]).toFixed(2)}x`);
    for (const i of olds) cells.push(cell(i), `${(row.values[now(i)] / row.values[i]).toFixed(2)}x`);
    console.log(`| ${cells.join(' | ')} |`);
  }
}

async function main() {
  const notes: string[] = [];
  // 1. CLI start-up against a bare node process, timed from a small helper process (cli-start.ts says why).
  if (!flags['no-startup'] && !throughputOnly) {
    console.log('\n| measurement | value | baseline | ratio | budget |\n|---|---|---|---|---|');
    const { rows, note } = startupRows();
    for (const r of rows) console.log(markdownRow(r));
    if (note) notes.push(note);
  }

  // 2. The stores and builds to compare, each with its own controller holding the same identities.
  let cluster: PgCluster | undefined;
  const targets: Target[] = [];
  try {
    const olds = baselines.map((commit) => ({ commit, dir: prepareBaseline(commit) }));
    targets.push(await startTarget('sqlite', 'SQLite', root));
    if (!flags['no-postgres']) {
      const started = startCluster(join(work, 'pg-cluster.json'));
      if ('unavailable' in started) {
        notes.push(`PostgreSQL not measured (SQLite only): ${started.unavailable}`);
        console.error(notes[notes.length - 1]);
      } else {
        cluster = started;
        targets.push(await startTarget('postgres', 'PostgreSQL', root, cluster.url));
      }
    }
    for (const [i, old] of olds.entries()) {
      targets.push(await startTarget(`baseline-${i}`, `SQLite @${old.commit}`, old.dir));
      if (cluster && flags['baseline-postgres'])
        targets.push(await startTarget(`baseline-pg-${i}`, `PostgreSQL @${old.commit}`, old.dir, cluster.url));
    }
    await measure(targets, notes);
  } finally {
    for (const t of targets) {
      t.controller.stop();
      await t.dispatcher.close();
    }
    cluster?.stop();
  }
  if (throughputOnly) return;
  // 3. Access decisions over a network at the scale issue 8 sets, on each store.
  if (!flags['no-access']) await accessScale({ postgres: !flags['no-postgres'] });
  // 4. Writes that change what policies select, from 8 writers at once, on each store.
  if (!flags['no-writes']) await concurrentWrites({ postgres: !flags['no-postgres'] });
  // 5. Two controllers on one PostgreSQL database against one, and how soon one sees the other's write.
  if (!flags['no-cluster'] && !flags['no-postgres']) await clusterBench();
}

/**
 * Authenticated GET by id against two bare node:https servers with the same certificate, in alternated rounds: one
 * answering a 37-byte envelope (the project's goal is set against it), one answering the controller's own answer,
 * byte for byte (what is the answer's size, TLS and the send, and what is our work).
 */
async function getByIdThroughput(targets: Target[]): Promise<{ rows: Row[]; summary: string }> {
  const pkiDir = join(targets[0].dataDir, 'pki');
  const first = targets[0];
  // On a connection of its own: the kept ones may have been closed by the controller while the CLI rows, timed
  // synchronously, held this process (its keep-alive timeout), and a request sent on one would fail.
  const fresh = new Agent({ connect: { ca: first.controller.caBundlePem } });
  const captured = await request(first.byIdUrl, { headers: first.headers, dispatcher: fresh });
  const sameBytes: BareAnswer = {
    body: Buffer.from(await captured.body.arrayBuffer()),
    contentType: String(captured.headers['content-type']),
  };
  await fresh.close();
  const workDir = dirname(first.dataDir);
  const bares = [
    await startBareServer(pkiDir, SMALLEST_ANSWER, workDir),
    await startBareServer(pkiDir, sameBytes, workDir),
  ];
  const load = { ca: first.controller.caBundlePem, total: 4000, concurrency: 16 };
  // The bare servers, then the targets: each with its load, its rate and its own CPU time per request of each round
  // (a server's CPU per request moves far less than its rate when others load the machine).
  const servers = [
    ...bares.map((bare) => ({ url: bare.url, cpuSeconds: bare.cpuSeconds, options: load })),
    ...targets.flatMap((t) =>
      [t.byIdUrl, t.byIdUrls].map((url) => ({
        url,
        cpuSeconds: t.controller.cpuSeconds,
        options: { ...load, ca: t.controller.caBundlePem, headers: t.headers },
      })),
    ),
  ].map((server) => ({ ...server, rates: [] as number[], cpu: [] as number[] }));
  // Three rounds of each, untimed: the first rounds ran slower on every server, JIT and caches still warming, and
  // the more so for code a server runs in one row only (a controller's reads, once the other row's answer is kept:
  // 70 and 60 µs per request in its first two rounds, 50 from the fourth, as before answers were kept).
  for (let n = 0; n < 3; n++) for (const server of servers) await throughput(server.url, server.options);
  for (let n = 0; n < 5; n++) {
    for (const server of servers) {
      const before = server.cpuSeconds();
      server.rates.push(await throughput(server.url, server.options));
      server.cpu.push(((server.cpuSeconds() - before) / load.total) * 1e6);
    }
  }
  for (const bare of bares) bare.close();
  const bareRps = servers.slice(0, bares.length).map((server) => server.rates);
  // Each target's two servers in turn: one identity asked for (its answer kept), then more than are kept in turn.
  const ofTargets = servers.slice(bares.length);
  const oneId = ofTargets.filter((_, i) => i % 2 === 0);
  const spread = ofTargets.filter((_, i) => i % 2 === 1);
  const rps = oneId.map((server) => server.rates);
  const cpu = oneId.map((server) => server.cpu);
  const spreadValues = spread.map((server) => median(server.rates));
  const [smallest, same] = bareRps.map(median);
  const [smallestCpu, sameCpu] = servers.slice(0, bares.length).map((server) => median(server.cpu));
  const values = rps.map(median);
  const rows: Row[] = [
    {
      what: 'authenticated GET /identities/{id} (÷ bare `node:https`)',
      unit: 'req/s',
      values,
      against: values.map(() => smallest),
    },
    {
      what: `the same (÷ bare \`node:https\` answering its ${sameBytes.body.length} bytes)`,
      unit: 'req/s',
      values,
      against: values.map(() => same),
    },
    {
      what:
        `the same, ${first.byIdUrls.length} identities asked for in turn, more than the controller keeps: each ` +
        'answer read from the store (÷ bare `node:https`)',
      unit: 'req/s',
      values: spreadValues,
      against: spreadValues.map(() => smallest),
    },
    {
      what: "the controller's CPU time per GET by id (÷ the bare server's answering the same bytes)",
      unit: 'µs',
      values: cpu.map(median),
      against: values.map(() => sameCpu),
    },
    {
      what: "the same, each answer read from the store (÷ the bare server's answering the same bytes)",
      unit: 'µs',
      values: spread.map((server) => median(server.cpu)),
      against: values.map(() => sameCpu),
    },
  ];
  const perRound = (values: number[]) => values.map((r) => r.toFixed(0)).join(', ');
  const rounds = targets.map((t, i) => `${t.label} ${perRound(rps[i])}`).join('; ');
  const summary =
    `bare \`node:https\` ${smallest.toFixed(0)} req/s (median of 5 rounds: ${perRound(bareRps[0])}); ` +
    `answering the controller's ${sameBytes.body.length} bytes ${same.toFixed(0)} req/s (${perRound(bareRps[1])}).\n` +
    `The bare servers' CPU time per request (their processes only): ${smallestCpu.toFixed(0)} µs answering 37 ` +
    `bytes, ${sameCpu.toFixed(0)} µs answering ${sameBytes.body.length}.\n` +
    `GET by id rounds (req/s): ${rounds}.`;
  return { rows, summary };
}

const controllerTitle = () =>
  `Controller, ${IDENTITIES.toLocaleString('en')} identities ` +
  "(each value in its own process; ratios to the run's baselines in parentheses)";
const loadAverage = async () =>
  (await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

async function measure(targets: Target[], notes: string[]): Promise<void> {
  if (throughputOnly) {
    const { rows, summary } = await getByIdThroughput(targets);
    printTable(controllerTitle(), targets, rows);
    console.log(`\nBaseline: ${summary}\n\nLoad average ${await loadAverage()} at the end.`);
    return;
  }
  const rows: Row[] = [];
  rows.push({
    what: `seeding ${IDENTITIES.toLocaleString('en')} identities (one transaction)`,
    unit: 's',
    values: targets.map((t) => t.seedSeconds),
  });

  // Filtered lists over the identities, through HTTP (what a client waits for), the targets alternated.
  const timed = async (path: string, runs: number): Promise<number[]> => {
    const times: number[][] = targets.map(() => []);
    for (let run = 0; run < runs; run++) {
      for (const [i, t] of targets.entries()) {
        const start = process.hrtime.bigint();
        const r = await request(`${t.controller.url}${path}`, { headers: t.headers, dispatcher: t.dispatcher });
        await r.body.arrayBuffer();
        times[i].push(Number(process.hrtime.bigint() - start) / 1e6);
        if (r.statusCode !== 200) throw new Error(`GET ${path} (${t.label}) answered ${r.statusCode}`);
      }
    }
    return times.map(median);
  };
  const listPath = (filter: string) => `/edge/management/v1/identities?filter=${encodeURIComponent(filter)}`;
  await timed('/edge/management/v1/version', 10); // warm the connections
  const version = await timed('/edge/management/v1/version', 50);
  rows.push({
    what: 'filter `name = "identity-54321"` (÷ GET /version)',
    unit: 'ms',
    values: await timed(listPath('name = "identity-54321"'), 50),
    against: version,
  });
  rows.push({
    what: 'filter `name contains "4321"`',
    unit: 'ms',
    values: await timed(listPath('name contains "4321"'), 20),
    against: version,
  });
  // What the web console's search sends: case folded, served by an index of upper(name) on PostgreSQL.
  rows.push({
    what: 'filter `name icontains "TITY-4321"`',
    unit: 'ms',
    values: await timed(listPath('name icontains "TITY-4321"'), 20),
    against: version,
  });
  // A needle in one name of nine: more than the substring index offers a list to read alone, so every row is read,
  // after asking the index (what a common needle pays on SQLite).
  rows.push({
    what: 'filter `name contains "ntity-1"` (11,111 rows)',
    unit: 'ms',
    values: await timed(listPath('name contains "ntity-1"'), 20),
    against: version,
  });
  rows.push({
    what: 'filter `anyOf(roleAttributes) = "finance"`',
    unit: 'ms',
    values: await timed(listPath('anyOf(roleAttributes) = "finance"'), 20),
    against: version,
  });
  rows.push({ what: "GET /version (the filters' baseline)", unit: 'ms', values: version });
  if (flags['store-only']) return printTable(controllerTitle(), targets, rows);

  // `ctl identity list` (each build's own CLI, logged in to its controller), alternated with `node -e ''`: resuming
  // the TLS session of the run before (as a second command does), and with a full handshake each time, from a copy
  // of the profile directory where no session can be kept (the first command once the controller's session expired).
  const list = (t: Target, configDir: string): TimedCommand => ({
    args: [join(t.root, 'bin', 'ctl.js'), 'identity', 'list', '--limit', '10'],
    env: cliEnv(configDir),
  });
  const resumed = targets.map((t) => list(t, t.configDir));
  const full = targets.map((t) => list(t, unkeptSessions(t.configDir)));
  const commands: TimedCommand[] = [['-e', ''], ...resumed, ...full];
  const cli = startupTimes(commands, 21);
  const { medians } = cli;
  const note = unsetNote(cli);
  if (note && !notes.includes(note)) notes.push(note);
  const node = targets.map(() => medians[0]);
  const n = targets.length;
  const [resumedMs, fullMs] = [medians.slice(1, 1 + n), medians.slice(1 + n)];
  rows.push({ what: '`ctl identity list` (÷ `node -e ""`)', unit: 'ms', values: resumedMs, against: node });
  rows.push({ what: '`ctl identity list`, full TLS handshake', unit: 'ms', values: fullMs, against: node });

  const throughputResult = await getByIdThroughput(targets);
  rows.push(...throughputResult.rows);

  printTable(controllerTitle(), targets, rows);
  console.log(`\nBaselines: \`node -e ""\` ${fmt(medians[0])}; ${throughputResult.summary}`);

  // Login and list latency (what the security limits cost on the normal path): bench/limits.ts in a process of
  // its own per target (an in-process controller, 100 identities), in three alternated rounds.
  const limits: Record<string, number>[][] = targets.map(() => []);
  for (let round = 0; round < 3; round++) {
    for (const [i, t] of targets.entries()) {
      const args = ['--import', 'tsx', join(root, 'bench', 'limits.ts'), '100', '--json', '--root', t.root];
      if (t.pgServer) args.push('--store', await freshDatabase(t.pgServer));
      const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`bench/limits.ts (${t.label}) failed: ${r.stderr}`);
      limits[i].push(JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, number>);
    }
  }
  const whats = Object.keys(limits[0][0]);
  printTable(
    'Login and list latency (bench/limits.ts: in-process controller, ' +
      '100 identities; median of 3 alternated runs, each a median)',
    targets,
    whats.map((what) => ({ what, unit: 'ms', values: limits.map((runs) => median(runs.map((r) => r[what]))) })),
  );

  // What a client's filters cost in memory: bench/filter-memory.ts, a controller process of its own per target.
  const growth: number[] = [];
  const after: number[] = [];
  for (const t of targets) {
    const args = ['--import', 'tsx', join(root, 'bench', 'filter-memory.ts'), '4000', '--json', '--root', t.root];
    if (t.pgServer) args.push('--store', await freshDatabase(t.pgServer));
    const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`bench/filter-memory.ts (${t.label}) failed: ${r.stderr}`);
    const result = JSON.parse(r.stdout.trim().split('\n').pop()!) as { rssAfterMb: number; growthMb: number };
    growth.push(result.growthMb);
    after.push(result.rssAfterMb);
  }
  const memoryTitle = 'Controller memory after 4,000 structurally distinct filters (bench/filter-memory.ts: its RSS)';
  printTable(memoryTitle, targets, [
    { what: 'RSS growth', unit: 'MB', values: growth },
    { what: 'RSS after', unit: 'MB', values: after },
  ]);
  const machine = `${process.platform} ${process.arch}, Node ${process.version}`;
  console.log(`\nMachine: ${machine}, load average ${await loadAverage()} at the end.`);
  for (const note of notes) console.log(`\n${note}`);
}

try {
  await main();
} finally {
  rmSync(work, { recursive: true, force: true });
}
