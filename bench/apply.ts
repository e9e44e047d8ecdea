// `node --import tsx bench/apply.ts [--no-postgres] [--scale 1]`: the network as code at size. A file of 1,000
// identities, 1,000 services, 1,000 configs and 200 policies (times --scale) is applied with `ctl apply` to an empty
// controller, then `ctl diff` of the same file against the result (which must find no change), on SQLite and on
// PostgreSQL. Prints a Markdown table for docs/performance.md. Numbers only: nothing passes or fails.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startControllerProcess, BENCH_ADMIN_PASSWORD } from './controller-process.js';
import { freshDatabase, startCluster } from './pg-database.js';

const { values: flags } = parseArgs({
  options: { 'no-postgres': { type: 'boolean' }, scale: { type: 'string', default: '1' } },
});
const scale = Number(flags.scale);
const ctl = new URL('../bin/ctl.js', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'ctl-bench-apply-'));

/** The network file: every service has its config, identities and services carry attributes the policies use. */
function network(): Record<string, unknown[]> {
  const n = 1000 * scale;
  const range = (count: number) => Array.from({ length: count }, (_, i) => i);
  const group = (i: number) => `g${i % 50}`;
  return {
    configTypes: [{ name: 'bench.v1', schema: { type: 'object' } }],
    configs: range(n).map((i) => ({ name: `cfg-${i}`, configType: 'bench.v1', data: { port: 1000 + (i % 60000) } })),
    services: range(n).map((i) => ({
      name: `svc-${i}`,
      encryptionRequired: true,
      roleAttributes: [group(i)],
      configs: [`cfg-${i}`],
    })),
    identities: range(n).map((i) => ({ name: `id-${i}`, type: 'User', isAdmin: false, roleAttributes: [group(i)] })),
    servicePolicies: range(200 * scale).map((i) => ({
      name: `sp-${i}`,
      type: i % 2 === 0 ? 'Dial' : 'Bind',
      semantic: 'AnyOf',
      identityRoles: [`#${group(i)}`, `@id-${i}`],
      serviceRoles: [`#${group(i)}`, `@svc-${i}`],
    })),
  };
}

function timed(args: string[], configDir: string, expected: number): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [ctl, ...args], {
    env: { ...process.env, CTL_CONFIG_DIR: configDir, CI: 'true', NO_COLOR: '1' },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (r.status !== expected) throw new Error(`ctl ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  return seconds;
}

async function measure(label: string, storeUrl?: string): Promise<string> {
  const dataDir = join(work, `${label}-data`);
  const configDir = join(work, `${label}-config`);
  const controller = await startControllerProcess(dataDir, { storeUrl });
  try {
    const ca = join(dataDir, 'ca-bundle.pem');
    const args = [ctl, 'login', controller.url, '-u', 'admin', '--password-stdin', '--ca', ca];
    const login = spawnSync(process.execPath, args, {
      env: { ...process.env, CTL_CONFIG_DIR: configDir },
      input: `${BENCH_ADMIN_PASSWORD}\n`,
    });
    if (login.status !== 0) throw new Error(`ctl login failed: ${login.stderr}`);
    const file = join(work, 'net.yaml');
    writeFileSync(file, JSON.stringify(network()));
    const apply = timed(['apply', '-f', file], configDir, 0);
    const diff = timed(['diff', '-f', file], configDir, 0);
    return `| ${label} | ${apply.toFixed(1)} s | ${diff.toFixed(1)} s |`;
  } finally {
    controller.stop();
  }
}

const rows = [await measure('SQLite')];
if (!flags['no-postgres']) {
  const cluster = startCluster(join(work, 'pg-state.json'));
  if ('unavailable' in cluster) rows.push(`| PostgreSQL | not measured: ${cluster.unavailable} | |`);
  else {
    try {
      rows.push(await measure('PostgreSQL', await freshDatabase(cluster.url)));
    } finally {
      cluster.stop();
    }
  }
}
const entities = 3200 * scale + 1;
const sizes = `${1000 * scale} each of identities, services, configs; ${200 * scale} policies`;
console.log(`Network file of ${entities} entities (${sizes})`);
console.log('');
console.log('| store | ctl apply to an empty controller | ctl diff, no changes |');
console.log('|---|---|---|');
for (const row of rows) console.log(row);
rmSync(work, { recursive: true, force: true });
