// A fresh PostgreSQL database for the bench, on a throwaway cluster (scripts/pg-cluster.mjs).
//
// Workaround: the store's first migration creates `identities` (whose `authPolicyId` references
// `auth_policies`) before `auth_policies`. SQLite accepts a reference to a table that does not exist yet;
// PostgreSQL refuses it, so `Store.open` (and `ctl controller start --store postgres://...`) fails on an empty
// database with `relation "auth_policies" does not exist`. Until the store orders its tables, the bench applies
// the same recorded migrations itself, with each migration's tables created after the tables they reference,
// and records them in `schema_migrations` as the store does; the store then finds nothing left to apply.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { postgresDialect } from '../src/controller/store/dialects/postgres.js';
import { renderOp } from '../src/controller/store/migrate.js';
import { MIGRATIONS } from '../src/controller/store/migrations/index.js';
import type { SchemaOp } from '../src/controller/store/schema-diff.js';

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

/** Tables before the tables that reference them; every other operation keeps its place after them. */
function inDependencyOrder(ops: readonly SchemaOp[]): SchemaOp[] {
  const creates = ops.filter((op): op is Extract<SchemaOp, { op: 'createTable' }> => op.op === 'createTable');
  const names = new Set(creates.map((op) => op.table.name));
  const done = new Set<string>();
  const ordered: SchemaOp[] = [];
  const visit = (op: (typeof creates)[number], path: Set<string>) => {
    if (done.has(op.table.name)) return;
    if (path.has(op.table.name)) throw new Error(`tables reference each other in a cycle: ${[...path].join(' -> ')}`);
    path.add(op.table.name);
    for (const fk of op.table.foreignKeys) {
      const target = creates.find((c) => c.table.name === fk.table);
      if (target && fk.table !== op.table.name && names.has(fk.table)) visit(target, path);
    }
    path.delete(op.table.name);
    done.add(op.table.name);
    ordered.push(op);
  };
  for (const op of creates) visit(op, new Set());
  return [...ordered, ...ops.filter((op) => op.op !== 'createTable')];
}

/** Creates an empty database with a random name on the server, migrated; returns its URL. */
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
  const db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  try {
    await db.query('BEGIN');
    // The same history table as the store's migrate().
    await db.query(`CREATE TABLE IF NOT EXISTS "schema_migrations" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "appliedAt" TEXT NOT NULL)`);
    for (const migration of MIGRATIONS) {
      for (const op of inDependencyOrder(migration.ops)) await db.query(renderOp(postgresDialect, op));
      await db.query(`INSERT INTO "schema_migrations" ("id", "name", "appliedAt") VALUES ($1, $2, $3)`, [migration.id, migration.name, new Date().toISOString()]);
    }
    await db.query('COMMIT');
  } finally {
    await db.end();
  }
  return url.toString();
}
