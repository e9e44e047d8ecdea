// A fresh PostgreSQL database for the bench, on a throwaway cluster (scripts/pg-cluster.mjs).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = fileURLToPath(new URL('..', import.meta.url));
const script = join(root, 'scripts', 'pg-cluster.mjs');

export interface PgCluster {
  /** The server's URL (its `postgres` database). */
  url: string;
  stop(): void;
}

/** Starts a throwaway cluster, or says why there is none (no PostgreSQL binaries). */
export function startCluster(stateFile: string): PgCluster | { unavailable: string } {
  const r = spawnSync(process.execPath, [script, 'start', '--state', stateFile], { encoding: 'utf8' });
  if (r.status !== 0) return { unavailable: r.stderr.trim().replace(/^pg-cluster: /, '') };
  return {
    url: r.stdout.trim(),
    stop: () => void spawnSync(process.execPath, [script, 'stop', '--state', stateFile], { stdio: 'ignore' }),
  };
}

/**
 * VACUUM ANALYZE of a database just seeded: what autovacuum does within a minute or two of a bulk load. Without it
 * the measurements that follow at once would see a store no running controller sees for long: no planner statistics,
 * and index-only scans that still read the table because its visibility map is empty.
 */
export async function settle(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
}

/** Creates an empty database with a random name on the server; the controller migrates it on start. */
export async function freshDatabase(serverUrl: string): Promise<string> {
  const name = `ctl_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
