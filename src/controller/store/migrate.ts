import { ControllerStartError } from '../start-error.js';
import type { Dialect } from './dialects/dialect.js';
import type { Driver } from './driver.js';
import type { Migration, SchemaOp } from './schema-diff.js';

/** DDL of one recorded operation in the driver's dialect. */
export function renderOp(dialect: Dialect, op: SchemaOp): string {
  switch (op.op) {
    case 'createTable':
      return dialect.createTable(op.table);
    case 'dropTable':
      return dialect.dropTable(op.name);
    case 'addColumn':
      return dialect.addColumn(op.table, op.column);
    case 'dropColumn':
      return dialect.dropColumn(op.table, op.name);
    case 'createIndex':
      return dialect.createIndex(op.index);
    case 'dropIndex':
      return dialect.dropIndex(op.name);
  }
}

/**
 * The database was migrated by a newer controller: its history records migrations this one does not know, so its
 * tables may hold columns, rows or rules this controller would break. Refused before anything is written.
 */
export class SchemaTooNewError extends ControllerStartError {
  constructor(readonly unknown: readonly { id: number; name: string }[]) {
    const list = unknown.map((m) => `${m.id} (${m.name})`).join(', ');
    const plural = unknown.length > 1 ? 's' : '';
    super(
      `the database's schema is newer than this controller: it records migration${plural} ${list}, which this ` +
        'version does not know; run the newer controller version (or restore a backup made before the upgrade)',
    );
  }
}

const HISTORY =
  'CREATE TABLE IF NOT EXISTS "schema_migrations" ("id" INTEGER ' +
  'PRIMARY KEY, "name" TEXT NOT NULL, "appliedAt" TEXT NOT NULL)';

/**
 * Brings the database to the last recorded migration: each pending one in its own transaction with its row in
 * `schema_migrations`, so a crash mid-way leaves the previous version intact. A SQLite database made before the
 * history table existed recorded its version in `PRAGMA user_version`; its migrations count as applied.
 * Returns the ids applied now.
 */
export async function migrate(driver: Driver, migrations: readonly Migration[], now: () => string): Promise<number[]> {
  await driver.exec(HISTORY);
  if (driver.dialect.name === 'sqlite') await adoptUserVersion(driver, migrations, now);
  const history = `SELECT "id", "name" FROM "schema_migrations" ORDER BY "id"`;
  const recorded = await driver.all<{ id: number; name: string }>(history);
  const known = new Set(migrations.map((m) => m.id));
  const unknown = recorded.filter((r) => !known.has(Number(r.id)));
  if (unknown.length > 0) throw new SchemaTooNewError(unknown.map((r) => ({ id: Number(r.id), name: r.name })));
  const done = new Set(recorded.map((r) => Number(r.id)));
  const applied: number[] = [];
  for (const migration of migrations) {
    if (done.has(migration.id)) continue;
    await driver.tx(async () => {
      for (const op of migration.ops) {
        const ddl = renderOp(driver.dialect, op);
        // Empty where the dialect has nothing to make (a trigram index on SQLite).
        if (ddl) await driver.exec(ddl);
      }
      await driver.run(`INSERT INTO "schema_migrations" ("id", "name", "appliedAt") VALUES (?, ?, ?)`, [
        migration.id,
        migration.name,
        now(),
      ]);
    });
    applied.push(migration.id);
  }
  return applied;
}

async function adoptUserVersion(driver: Driver, migrations: readonly Migration[], now: () => string): Promise<void> {
  const version = (await driver.get<{ user_version: number }>('PRAGMA user_version'))?.user_version ?? 0;
  if (version === 0) return;
  const recorded = await driver.get<{ n: number }>(`SELECT count(*) AS n FROM "schema_migrations"`);
  if ((recorded?.n ?? 0) > 0) return;
  await driver.tx(async () => {
    for (const m of migrations.filter((m) => m.id <= version)) {
      await driver.run(`INSERT INTO "schema_migrations" ("id", "name", "appliedAt") VALUES (?, ?, ?)`, [
        m.id,
        m.name,
        now(),
      ]);
    }
  });
}
