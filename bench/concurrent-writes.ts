// Writes that change what policies select, 8 writers at once: what keeping the access index exact under
// concurrency costs. A controller process per store holds 200 identities, 50 services and 20 service policies over
// eight attributes; 8 clients then each make WRITES_PER_CLIENT writes in a row, alternately replacing an identity's
// attributes and a policy's identity roles. Timed over HTTPS from this process: p50 and p95 per kind, the writes
// per second of the whole run, and how many answers were not 200 (by status). Nothing passes or fails.
//
//   node --import tsx bench/concurrent-writes.ts [--no-postgres] [--root DIR]      (also part of `npm run bench`)
// `--root` measures another checkout's build (its bin/ctl.js), to compare before and after a change.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { startControllerProcess, BENCH_ADMIN_PASSWORD } from './controller-process.js';
import { freshDatabase, startCluster } from './pg-database.js';
import { fmt, median } from './stats.js';

const WRITERS = 8;
const WRITES_PER_CLIENT = 100;
const ATTRIBUTES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(values.length - 1, Math.floor(values.length * p))];
};
const pick = <T>(list: readonly T[]) => list[Math.floor(Math.random() * list.length)];
const someAttributes = () => ATTRIBUTES.filter(() => Math.random() < 0.3);

export interface WriteFigures {
  label: string;
  attributes: number[];
  roles: number[];
  writesPerSecond: number;
  failures: Record<string, number>;
}

type Target = { root?: string; storeUrl?: string };

async function measureStore(label: string, dataDir: string, opts: Target): Promise<WriteFigures> {
  const controller = await startControllerProcess(dataDir, { root: opts.root, storeUrl: opts.storeUrl });
  const dispatcher = new Agent({ connect: { ca: controller.caBundlePem }, connections: WRITERS });
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const r = await request(`${controller.url}/edge/management/v1${path}`, {
      method: method as 'GET',
      dispatcher,
      headers: { 'zt-session': token, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: r.statusCode, body: (await r.body.json()) as { data: any } };
  };
  const created = async (path: string, token: string, body: unknown) => {
    const r = await call('POST', path, token, body);
    if (r.status !== 201) throw new Error(`POST ${path} (${label}): ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data.id as string;
  };
  try {
    const credentials = { username: 'admin', password: BENCH_ADMIN_PASSWORD };
    const login = await call('POST', '/authenticate?method=password', '', credentials);
    const token = login.body.data.token as string;
    const identities: string[] = [];
    for (let i = 0; i < 200; i++) {
      const body = { name: `w-${i}`, type: 'User', isAdmin: false, roleAttributes: someAttributes() };
      identities.push(await created('/identities', token, body));
    }
    for (let i = 0; i < 50; i++) {
      await created('/services', token, { name: `s-${i}`, roleAttributes: someAttributes(), encryptionRequired: true });
    }
    const policies: string[] = [];
    for (let i = 0; i < 20; i++) {
      const roles = { identityRoles: [`#${pick(ATTRIBUTES)}`], serviceRoles: [`#${pick(ATTRIBUTES)}`] };
      const semantic = pick(['AllOf', 'AnyOf']);
      policies.push(await created('/service-policies', token, { name: `p-${i}`, type: 'Dial', semantic, ...roles }));
    }
    const attributes: number[] = [];
    const roles: number[] = [];
    const failures: Record<string, number> = {};
    const writer = async (n: number) => {
      for (let i = 0; i < WRITES_PER_CLIENT; i++) {
        const relabel = (i + n) % 2 === 0;
        const start = process.hrtime.bigint();
        const identityRoles = [...someAttributes().map((a) => `#${a}`), `@${pick(identities)}`];
        const r = relabel
          ? await call('PATCH', `/identities/${pick(identities)}`, token, { roleAttributes: someAttributes() })
          : await call('PATCH', `/service-policies/${pick(policies)}`, token, { identityRoles });
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        if (r.status === 200) (relabel ? attributes : roles).push(ms);
        else failures[r.status] = (failures[r.status] ?? 0) + 1;
      }
    };
    const start = process.hrtime.bigint();
    await Promise.all(Array.from({ length: WRITERS }, (_, n) => writer(n)));
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    return { label, attributes, roles, writesPerSecond: (WRITERS * WRITES_PER_CLIENT) / seconds, failures };
  } finally {
    controller.stop();
    await dispatcher.close();
  }
}

/** The figures of each store, printed as a Markdown table. */
export async function concurrentWrites(opts: { postgres: boolean; root?: string }): Promise<WriteFigures[]> {
  const work = mkdtempSync(join(tmpdir(), 'ctl-bench-writes-'));
  const figures: WriteFigures[] = [];
  try {
    figures.push(await measureStore('SQLite', join(work, 'sqlite'), { root: opts.root }));
    if (opts.postgres) {
      const cluster = startCluster(join(work, 'pg-cluster.json'));
      if ('unavailable' in cluster) console.error(`PostgreSQL not measured: ${cluster.unavailable}`);
      else {
        try {
          const storeUrl = await freshDatabase(cluster.url);
          figures.push(await measureStore('PostgreSQL', join(work, 'postgres'), { root: opts.root, storeUrl }));
        } finally {
          cluster.stop();
        }
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const timing = (values: number[]) => {
    return values.length ? `${fmt(median(values))} (${fmt(percentile(values, 0.95))})` : 'none answered 200';
  };
  console.log(`\nWrites under ${WRITERS} concurrent writers (${WRITES_PER_CLIENT} each; p50, p95 in parentheses)\n`);
  console.log(`| measurement | ${figures.map((f) => f.label).join(' | ')} |`);
  console.log(`|---|${figures.map(() => '---').join('|')}|`);
  console.log(`| change an identity's role attributes | ${figures.map((f) => timing(f.attributes)).join(' | ')} |`);
  console.log(`| change a service policy's identity roles | ${figures.map((f) => timing(f.roles)).join(' | ')} |`);
  console.log(`| writes per second, all writers | ${figures.map((f) => f.writesPerSecond.toFixed(0)).join(' | ')} |`);
  const failed = (f: WriteFigures) => {
    return (
      Object.entries(f.failures)
        .map(([status, n]) => `${n} x ${status}`)
        .join(', ') || 'none'
    );
  };
  console.log(`| answers other than 200 | ${figures.map(failed).join(' | ')} |`);
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { 'no-postgres': { type: 'boolean' }, root: { type: 'string' } } });
  await concurrentWrites({ postgres: !values['no-postgres'], root: values.root });
}
