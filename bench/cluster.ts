// Several controllers on one PostgreSQL database (--shared-database): what a second controller adds to
// the throughput of a mixed load, and how soon a write made on one controller is seen on another. Two controller
// processes serve one database holding 200 identities; CLIENTS clients make OPERATIONS requests in all, four reads
// (GET /identities/{id}) to one write (PATCH of an identity's role attributes), first all at one controller, then
// spread over both, in alternated rounds (the second controller runs, idle, in the first case too). Then WRITES
// times: a write on the first controller, and reads of it on the second until it shows the write. Nothing passes or
// fails.
//
//   node --import tsx bench/cluster.ts          (also part of `npm run bench`, unless --no-cluster or --no-postgres)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { type ControllerProcess, startControllerProcess, BENCH_ADMIN_PASSWORD } from './controller-process.js';
import { freshDatabase, startCluster } from './pg-database.js';
import { fmt, median } from './stats.js';

const CLIENTS = 16;
const OPERATIONS = 3_000;
const ROUNDS = 3;
const WRITES = 300;
const IDENTITIES = 200;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(values.length - 1, Math.floor(values.length * p))];
};

/** A management API client of one controller, with the session made on the first (sessions are shared). */
function clientOf(controller: ControllerProcess) {
  const dispatcher = new Agent({ connect: { ca: controller.caBundlePem }, connections: CLIENTS });
  let token = '';
  const call = async (method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown) => {
    const r = await request(`${controller.url}/edge/management/v1${path}`, {
      method,
      dispatcher,
      headers: { 'zt-session': token, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await r.body.json()) as { data: any };
    if (r.statusCode >= 300) throw new Error(`${method} ${path} on ${controller.url}: ${r.statusCode}`);
    return json.data;
  };
  return { call, controller, useToken: (t: string) => (token = t), close: () => dispatcher.close() };
}
type Client = ReturnType<typeof clientOf>;

/** OPERATIONS requests from CLIENTS clients, client n on controller n mod the count; answers requests a second. */
async function mixedLoad(clients: Client[], identities: string[]): Promise<number> {
  let next = 0;
  const worker = async (n: number) => {
    const { call } = clients[n % clients.length];
    for (let i = next++; i < OPERATIONS; i = next++) {
      const id = identities[i % identities.length];
      if (i % 5 === 4) await call('PATCH', `/identities/${id}`, { roleAttributes: [`r${i % 7}`] });
      else await call('GET', `/identities/${id}`);
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: CLIENTS }, (_, n) => worker(n)));
  return OPERATIONS / (Number(process.hrtime.bigint() - start) / 1e9);
}

/** Milliseconds from a write's answer on `writer` to the first read on `reader` that shows it; and reads it took. */
async function visibility(writer: Client, reader: Client, id: string, n: number) {
  const attribute = `seen-${n}`;
  await writer.call('PATCH', `/identities/${id}`, { roleAttributes: [attribute] });
  const start = process.hrtime.bigint();
  for (let reads = 1; ; reads++) {
    const identity = await reader.call('GET', `/identities/${id}`);
    if (identity.roleAttributes?.includes(attribute)) {
      return { ms: Number(process.hrtime.bigint() - start) / 1e6, reads };
    }
  }
}

export async function clusterBench(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'ctl-bench-cluster-'));
  const cluster = startCluster(join(work, 'pg-cluster.json'));
  if ('unavailable' in cluster) {
    console.error(`Several controllers not measured: ${cluster.unavailable}`);
    rmSync(work, { recursive: true, force: true });
    return;
  }
  const controllers: ControllerProcess[] = [];
  const clients: Client[] = [];
  try {
    const storeUrl = await freshDatabase(cluster.url);
    const keyFile = join(work, 'pki.key');
    writeFileSync(keyFile, 'a-secret-of-forty-eight-bytes-made-for-this-bench', { mode: 0o600 });
    // The flag's first name, which builds from before its rename take too (a baseline may be one).
    const args = ['--pki-key-file', keyFile, '--experimental-shared-database'];
    // One after the other: the first writes the PKI the second opens.
    for (const name of ['a', 'b']) controllers.push(await startControllerProcess(join(work, name), { storeUrl, args }));
    clients.push(...controllers.map(clientOf));
    const [a, b] = clients;
    const { token } = await a.call('POST', '/authenticate?method=password', {
      username: 'admin',
      password: BENCH_ADMIN_PASSWORD,
    });
    for (const c of clients) c.useToken(token);
    const identities: string[] = [];
    for (let i = 0; i < IDENTITIES; i++) {
      const body = { name: `c-${i}`, type: 'User', isAdmin: false, roleAttributes: [] };
      identities.push((await a.call('POST', '/identities', body)).id);
    }
    await mixedLoad(clients, identities); // warm both: connections, compiled code, statements
    const rates = { one: [] as number[], two: [] as number[] };
    const cpu = { one: [] as number[], two: [] as number[] };
    const clientCpu = { one: [] as number[], two: [] as number[] };
    const cpuOfBoth = () => controllers.reduce((sum, c) => sum + c.cpuSeconds(), 0);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [kind, serving] of [
        ['one', [a]],
        ['two', [a, b]],
      ] as const) {
        const [before, clientBefore] = [cpuOfBoth(), process.cpuUsage()];
        rates[kind].push(await mixedLoad([...serving], identities));
        cpu[kind].push(((cpuOfBoth() - before) / OPERATIONS) * 1e6);
        const used = process.cpuUsage(clientBefore);
        clientCpu[kind].push((used.user + used.system) / OPERATIONS);
      }
    }
    const seen: { ms: number; reads: number }[] = [];
    for (let n = 0; n < WRITES; n++) seen.push(await visibility(a, b, identities[n % identities.length], n));
    const delays = seen.map((s) => s.ms);
    const [one, two] = [median(rates.one), median(rates.two)];
    const rounds = (values: number[]) => values.map((v) => v.toFixed(0)).join(', ');
    console.log(
      `\nSeveral controllers on one PostgreSQL database (${CLIENTS} clients, ${OPERATIONS} requests a round, ` +
        `4 reads to 1 write; median of ${ROUNDS} alternated rounds)\n`,
    );
    console.log('| measurement | one controller | two controllers | two ÷ one |\n|---|---|---|---|');
    console.log(`| requests per second | ${one.toFixed(0)} | ${two.toFixed(0)} | ${(two / one).toFixed(2)}x |`);
    const [cpuOne, cpuTwo] = [median(cpu.one), median(cpu.two)];
    const cpuRow = `${cpuOne.toFixed(0)} µs | ${cpuTwo.toFixed(0)} µs | ${(cpuTwo / cpuOne).toFixed(2)}x`;
    console.log(`| controllers' CPU time per request (both processes) | ${cpuRow} |`);
    const [clientOne, clientTwo] = [median(clientCpu.one), median(clientCpu.two)];
    const clientRatio = (clientTwo / clientOne).toFixed(2);
    const clientRow = `${clientOne.toFixed(0)} µs | ${clientTwo.toFixed(0)} µs | ${clientRatio}x`;
    console.log(`| the clients' CPU time per request (this process) | ${clientRow} |`);
    console.log(`\nRounds (req/s): one ${rounds(rates.one)}; two ${rounds(rates.two)}.`);
    const moreThanOne = seen.filter((s) => s.reads > 1).length;
    console.log(
      `\nA write on one controller seen on the other (${WRITES} writes): p50 ${fmt(percentile(delays, 0.5))}, ` +
        `p99 ${fmt(percentile(delays, 0.99))} from the write's answer to the first read showing it; ` +
        `${moreThanOne} of ${WRITES} took more than one read.`,
    );
    console.log(
      `\nLoad average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} at the end.`,
    );
  } finally {
    for (const c of clients) await c.close();
    for (const c of controllers) c.stop();
    cluster.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await clusterBench();
