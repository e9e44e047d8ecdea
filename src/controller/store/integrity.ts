import { openSync, closeSync, existsSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ApiError } from '../../protocol/errors.js';
import type { ResourceDef } from '../../resources/index.js';
import type { Driver } from './driver.js';
import { quote } from './fragment.js';
import type { Row } from './repository.js';
import type { RoleIndex } from './role-index.js';
import {
  declaredSchema,
  isSetField,
  matchTableName,
  setTableName,
  type ForeignKeyModel,
  type IndexModel,
  type TableModel,
} from './schema-model.js';
import { type DriftCheck, rebuildSearchIndex, searchIndexCheck } from './search-index-drift.js';

/**
 * The model's write path (model/writes.ts) as the repairs of entities use it, so that what the hooks of a repaired
 * resource maintain (sessions ended, service update stamps moved, the access index) follows the repair as it
 * follows any write.
 */
export interface RepairWrites {
  update(resource: string, id: string, values: Record<string, unknown>, now: string): Promise<void>;
  delete(resource: string, row: Row): Promise<void>;
}

/** One problem found: what is wrong, in words, and whether the fix run repaired it. */
export interface IntegrityIssue {
  description: string;
  fixed: boolean;
}

/**
 * Consistency checks over the whole database, and the repairs that can be made without a person deciding:
 *
 * - the database's own check (SQLite `PRAGMA integrity_check`: damaged pages, broken indexes; on PostgreSQL, the
 *   `amcheck` extension's B-tree check of the controller's indexes, when an operator has installed the extension:
 *   PostgreSQL has nothing built in); never repaired here;
 * - references to entities that do not exist, column by column: a reference whose declaration cascades loses its
 *   row, one that clears is cleared, one that restricts is reported only (someone must decide what it points to);
 * - sets (role attributes, reference lists, roles) whose JSON copy, served in read models, and side table, queried
 *   by filters and policies, disagree; ids in them that no longer exist (a reference list's member, a role's `@id`).
 *   The JSON copy is what the API shows, so the side table is rebuilt from it; dangling ids leave both.
 *
 * - the tables filters read in place of the rows (SQLite's substring indexes, PostgreSQL's value counts), kept by
 *   triggers, against the rows: rebuilt from them.
 *
 * Repairs of an entity (its row deleted, a reference cleared, a set rewritten) go through the write path. Three are
 * made below it, because there is no entity to write: side rows whose owner is gone, the access index's rows, which
 * are derived from the policies (rebuilt as a policy's write rebuilds them), and the filters' tables.
 *
 * Each table and set is checked (and fixed) in a transaction of its own, so the check sees a consistent state of
 * what it looks at and writers wait only for that part; between them the check yields to the event loop, so that
 * requests are served while it runs (SQLite statements are synchronous and would otherwise hold the loop).
 */
export class Integrity {
  constructor(
    private readonly driver: Driver,
    private readonly catalogue: readonly ResourceDef[],
    private readonly resolve: (name: string) => ResourceDef,
    private readonly roleIndexes: readonly RoleIndex[],
    private readonly writes: RepairWrites,
    /** A row as the write path is given it. */
    private readonly find: (resource: string, id: string) => Promise<Row | undefined>,
    /** Called when a fix run ends: some repairs are made below the repositories, whose cached reads must go. */
    private readonly onFixed: () => void,
  ) {}

  /** The resource whose table this is (the catalogue declares every table checked for references). */
  private resourceOf(table: string): ResourceDef {
    const def = this.catalogue.find((d) => d.table === table);
    if (!def) throw new Error(`integrity: no resource keeps its rows in ${table}`);
    return def;
  }

  /** Runs every check; `report` is called once per issue, in order. */
  async check(fix: boolean, report: (issue: IntegrityIssue) => void): Promise<void> {
    try {
      await this.checkAll(fix, report);
    } finally {
      if (fix) this.onFixed();
    }
  }

  private async checkAll(fix: boolean, report: (issue: IntegrityIssue) => void): Promise<void> {
    if (this.driver.dialect.name === 'sqlite') await this.databaseCheck(report);
    else await this.postgresIndexCheck(report);
    const schema = declaredSchema(this.catalogue, this.resolve);
    const sideTables = new Set<string>();
    for (const def of this.catalogue) {
      for (const [field, f] of Object.entries(def.fields))
        if (isSetField(f) && !f.virtual && !f.computed) sideTables.add(setTableName(def, field));
    }
    // The access index's rows are derived: checked against the policies below, not as references.
    for (const index of this.roleIndexes) sideTables.add(matchTableName(index.policy, index.field));
    for (const table of Object.values(schema.tables)) {
      if (sideTables.has(table.name)) continue;
      for (const fk of table.foreignKeys) {
        await nextTurn();
        await this.driver.tx(() => this.danglingReferences(table, fk, fix, report));
      }
    }
    for (const def of this.catalogue) {
      for (const [field, f] of Object.entries(def.fields)) {
        if (!isSetField(f) || f.virtual || f.computed) continue;
        await nextTurn();
        await this.driver.tx(() => this.setConsistency(def, field, fix, report));
      }
    }
    for (const index of this.roleIndexes) {
      await nextTurn();
      await this.driver.tx(() => this.accessIndex(index, fix, report));
    }
    for (const index of Object.values(schema.indexes)) {
      const check = searchIndexCheck(this.driver, index);
      if (!check) continue;
      await nextTurn();
      await this.driver.tx(() => this.searchIndex(index, check, fix, report));
    }
  }

  /** A table that filters read in place of the rows (search-index-drift.ts), rebuilt from them on fix. */
  private async searchIndex(
    index: IndexModel,
    check: DriftCheck,
    fix: boolean,
    report: (issue: IntegrityIssue) => void,
  ): Promise<void> {
    const drift = await check();
    if (drift === undefined) return;
    if (fix) await rebuildSearchIndex(this.driver, index);
    report({ description: drift, fixed: fix });
  }

  /** The access index against the policies' roles as stored now (after the role sets themselves were settled). */
  private async accessIndex(index: RoleIndex, fix: boolean, report: (issue: IntegrityIssue) => void): Promise<void> {
    // With the writers of the index held off, what is read is one state: none of them is half-way through.
    await this.driver.hold('access-index');
    for (const { policyId, missing, extra } of await index.drift()) {
      const what =
        `access index of ${index.policy.label} '${policyId}' (${index.field}): ` +
        `${missing} selected entities missing, ${extra} extra`;
      if (fix) await index.rebuild(policyId);
      report({ description: fix ? `${what}: rebuilt from its roles` : what, fixed: fix });
    }
  }

  private async databaseCheck(report: (issue: IntegrityIssue) => void): Promise<void> {
    const rows = await this.driver.all<Record<string, string>>('PRAGMA integrity_check');
    for (const row of rows) {
      const message = Object.values(row)[0];
      if (message !== 'ok') report({ description: `SQLite integrity check: ${message}`, fixed: false });
    }
  }

  /** `bt_index_check` on every B-tree index of the current schema's tables, when `amcheck` is installed. */
  private async postgresIndexCheck(report: (issue: IntegrityIssue) => void): Promise<void> {
    const installed = await this.driver.get<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_extension WHERE extname = 'amcheck'",
    );
    if (!installed?.n) return;
    const indexes = await this.driver.all<{ name: string }>(
      'SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid ' +
        'JOIN pg_am am ON am.oid = c.relam JOIN pg_namespace n ON n.oid = c.relnamespace ' +
        "WHERE am.amname = 'btree' AND n.nspname = current_schema() ORDER BY c.relname",
    );
    for (const { name } of indexes) {
      try {
        await this.driver.get('SELECT bt_index_check(to_regclass(?)) AS ok', [quote(name)]);
      } catch (err) {
        report({ description: `PostgreSQL index check (amcheck) of ${name}: ${(err as Error).message}`, fixed: false });
      }
    }
  }

  private async danglingReferences(
    table: TableModel,
    fk: ForeignKeyModel,
    fix: boolean,
    report: (issue: IntegrityIssue) => void,
  ): Promise<void> {
    const col = quote(fk.column);
    const rows = await this.driver.all<{ id: string; ref: string }>(
      `SELECT c."id" AS id, c.${col} AS ref FROM ${quote(table.name)} c WHERE c.${col} IS NOT NULL ` +
        `AND NOT EXISTS (SELECT 1 FROM ${quote(fk.table)} p WHERE p."id" = c.${col}) ORDER BY c."id"`,
    );
    for (const row of rows) {
      const what = `${table.name} '${row.id}': ${fk.column} refers to ${fk.table} '${row.ref}', which does not exist`;
      if (!fix || fk.onDelete === 'restrict') {
        report({
          description:
            fk.onDelete === 'restrict' && fix
              ? `${what} (not fixed: the reference is required; set it or delete the row)`
              : what,
          fixed: false,
        });
        continue;
      }
      const owner = this.resourceOf(table.name).name;
      if (fk.onDelete === 'cascade') {
        const stored = await this.find(owner, row.id);
        if (stored) await this.writes.delete(owner, stored);
        report({
          description: `${what}: the row was deleted, as deleting ${fk.table} '${row.ref}' would have done`,
          fixed: true,
        });
      } else {
        await this.writes.update(owner, row.id, { [fk.column]: null }, new Date().toISOString());
        report({ description: `${what}: the reference was cleared`, fixed: true });
      }
    }
  }

  private async setConsistency(
    def: ResourceDef,
    field: string,
    fix: boolean,
    report: (issue: IntegrityIssue) => void,
  ): Promise<void> {
    const owners = quote(def.table);
    const side = quote(setTableName(def, field));
    const type = def.fields[field].type;

    // Side rows whose owner is gone (a foreign key that was not enforced when the owner went).
    const orphans = await this.driver.all<{ ownerId: string; value: string }>(
      `SELECT s."ownerId" AS "ownerId", s."value" AS value FROM ${side} s WHERE NOT EXISTS ` +
        `(SELECT 1 FROM ${owners} o WHERE o."id" = s."ownerId") ORDER BY s."ownerId", s."value"`,
    );
    for (const o of orphans) {
      const what =
        `${setTableName(def, field)}: '${o.value}' belongs ` + `to ${def.table} '${o.ownerId}', which does not exist`;
      if (fix) await this.driver.run(`DELETE FROM ${side} WHERE "ownerId" = ? AND "value" = ?`, [o.ownerId, o.value]);
      report({ description: fix ? `${what}: removed` : what, fixed: fix });
    }

    // Ids a reference list or a role set holds that no longer exist.
    let exists: ((values: string[]) => Promise<Set<string>>) | undefined;
    if (type.kind === 'refList' || type.kind === 'roles') {
      const target = quote(this.resolve(type.resource).table);
      exists = async (ids) => {
        if (ids.length === 0) return new Set();
        const list = this.driver.dialect.inList({ sql: '"id"', params: [] }, ids);
        return new Set(
          (
            await this.driver.all<{ id: string }>(`SELECT "id" AS id FROM ${target} WHERE ${list.sql}`, list.params)
          ).map((r) => r.id),
        );
      };
    }

    const rows = await this.driver.all<{ id: string; v: string | null }>(
      `SELECT "id" AS id, ${quote(field)} AS v FROM ${owners} ORDER BY "id"`,
    );
    const sideRows = await this.driver.all<{ ownerId: string; value: string }>(
      `SELECT "ownerId" AS "ownerId", "value" AS value FROM ${side}`,
    );
    const sideOf = new Map<string, Set<string>>();
    for (const s of sideRows) {
      if (!sideOf.has(s.ownerId)) sideOf.set(s.ownerId, new Set());
      sideOf.get(s.ownerId)!.add(s.value);
    }
    const idOf = (value: string) =>
      type.kind === 'roles' ? (value.startsWith('@') ? value.slice(1) : undefined) : value;
    const referenced = [
      ...new Set(
        rows
          .flatMap((r) => parseSet(r.v))
          .map(idOf)
          .filter((x): x is string => x !== undefined),
      ),
    ];
    const existing = exists ? await exists(referenced) : undefined;

    for (const row of rows) {
      const stored = parseSet(row.v);
      const where = `${def.table} '${row.id}' ${field}`;
      const dangling = existing
        ? stored.filter((v) => {
            const id = idOf(v);
            return id !== undefined && !existing.has(id);
          })
        : [];
      const kept = stored.filter((v) => !dangling.includes(v));
      if (dangling.length > 0) {
        // The set without them, its side table rewritten with it.
        if (fix) await this.writes.update(def.name, row.id, { [field]: kept }, new Date().toISOString());
        const target = this.resolve((type as { resource: string }).resource).table;
        for (const v of dangling) {
          const what = `${where}: '${v}' refers to ${target} '${idOf(v)}', which does not exist`;
          report({ description: fix ? `${what}: removed` : what, fixed: fix });
        }
      }
      // The side table against the stored value, the dangling ids (reported above) set aside.
      const expected = new Set(kept);
      const actual = new Set([...(sideOf.get(row.id) ?? [])].filter((v) => !dangling.includes(v)));
      const missing = [...expected].filter((v) => !actual.has(v));
      const extra = [...actual].filter((v) => !expected.has(v));
      if (missing.length === 0 && extra.length === 0) continue;
      const what =
        `${where}: the side table ${setTableName(def, field)} disagrees with the stored ` +
        `value (missing ${JSON.stringify(missing)}, extra ${JSON.stringify(extra)})`;
      // Written again as it is stored: the repository rewrites the side table from the value.
      if (fix) await this.writes.update(def.name, row.id, { [field]: kept }, new Date().toISOString());
      report({ description: fix ? `${what}: rebuilt from the stored value` : what, fixed: fix });
    }
  }

  /**
   * Copies the database to a new file beside it, named as OpenZiti names its snapshots (`<file>-YYYYMMDD-HHMMSS`),
   * consistent as of one moment (SQLite `VACUUM INTO`), readable only by the owner (it holds password hashes).
   * PostgreSQL: refused with an error that says so; backups there are the database's own job (pg_dump).
   */
  async snapshot(now: Date): Promise<string> {
    if (this.driver.dialect.name !== 'sqlite') {
      throw new ApiError('SNAPSHOT_NOT_SUPPORTED', {
        status: 501,
        message:
          "this controller keeps its data in PostgreSQL, whose backups are the database server's job: use pg_dump " +
          "(or your database service's snapshots); the controller snapshots only its embedded SQLite database",
      });
    }
    const main = (await this.driver.all<{ name: string; file: string }>('PRAGMA database_list')).find(
      (d) => d.name === 'main',
    );
    if (!main?.file) {
      throw new ApiError('SNAPSHOT_NOT_SUPPORTED', {
        status: 501,
        message: 'the database is in memory only: there is no file to snapshot beside',
      });
    }
    const stamp = now
      .toISOString()
      .replace(/\.\d+Z$/, '')
      .replace(/-|:/g, '')
      .replace('T', '-');
    const path = `${main.file}-${stamp}`;
    if (existsSync(path))
      throw new ApiError('SERVER_TOO_MANY_REQUESTS', {
        message: `a snapshot named ${path} exists already: try again in a second`,
      });
    // Created empty and owner-only first: VACUUM INTO writes into an empty file and keeps its mode.
    closeSync(openSync(path, 'wx', 0o600));
    await this.driver.run('VACUUM INTO ?', [path]);
    return path;
  }
}

function parseSet(value: string | null): string[] {
  if (value === null || value === undefined) return [];
  try {
    const parsed = JSON.parse(value) as unknown;
    return Array.isArray(parsed) ? [...new Set(parsed.filter((v): v is string => typeof v === 'string'))] : [];
  } catch {
    return [];
  }
}
