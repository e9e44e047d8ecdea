import type { Fragment } from '../fragment.js';
import type { ColumnModel, ColumnType, IndexModel, TableModel } from '../schema-model.js';

/** How an operation reads a tag, whose values are untyped JSON: a typed view reads other JSON types as NULL. */
export type TagView = 'any' | 'string' | 'number' | 'substring' | 'boolean' | 'datetime';

/** What a database error means to the API, as far as the store can tell. */
export type ConstraintViolation =
  | { kind: 'unique'; table?: string; columns?: string[]; constraint?: string }
  | { kind: 'foreignKey'; constraint?: string };

/**
 * Everything that differs between the SQL of SQLite and of PostgreSQL, in one place: DDL, the few functions the
 * filter compiler needs, paging without a limit, lists bound as one parameter, and error classification.
 * Everything else (the repository, the filter compiler, migrations) writes one SQL for both.
 */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  createTable(table: TableModel): string;
  createIndex(index: IndexModel): string;
  dropIndex(name: string): string;
  addColumn(table: string, column: ColumnModel): string;
  dropColumn(table: string, column: string): string;
  dropTable(name: string): string;
  /** The LIMIT value that means "no limit". */
  readonly noLimit: number | null;
  /** `expr IN (<the values of one bound list parameter>)`. */
  inList(expr: Fragment, values: readonly string[]): Fragment;
  /**
   * A SELECT of rows bound as one parameter (a JSON array of arrays, one value per column, in order): one statement
   * text whatever the number of rows, so a batch of inserts is one prepared statement and one round trip.
   */
  jsonRows(columns: readonly ColumnType[], rows: string): Fragment;
  /**
   * The ids a substring index offers for a needle, at most `most` of them: every entity whose column holds the
   * needle, and perhaps others (the caller tests each). Undefined where the dialect reads no such index (PostgreSQL's
   * planner uses its own for `containsText`) or the needle is too short for one.
   */
  substringCandidates?(index: string, needle: string, most: number): Fragment | undefined;
  /**
   * A column as a condition names it when it must not seek by it (SQLite's unary `+`): where the database plans
   * without statistics, so that the store can choose the plan (Repository.list, an access list walked in order).
   * Undefined where the planner weighs its ways itself (PostgreSQL).
   */
  unseekable?(column: string): string;
  /**
   * A count of the owners holding one value of a set, read from its value counts (IndexModel `valueCounts`), as a
   * statement returning `n`; undefined where the dialect keeps none.
   */
  valueCount?(counts: string, value: Fragment): Fragment;
  /** Position-independent substring test (`instr`/`strpos`); numbers are tested in their decimal form. */
  containsText(haystack: Fragment, needle: string, ignoreCase: boolean): Fragment;
  /** A tag of the JSON text column `tagsSql`, read as `view`. */
  tagValue(tagsSql: string, key: Fragment, view: TagView): Fragment;
  /** ORDER BY term for a tag; `key` has been checked to hold identifier characters only. */
  tagSort(tagsSql: string, key: string): string;
  /** Classifies a driver error as a constraint violation, or undefined for anything else. */
  violation(err: unknown): ConstraintViolation | undefined;
}

/** Shared DDL rendering; the dialects differ in column types and table options. */
export function renderCreateTable(table: TableModel, typeOf: (c: ColumnModel) => string, suffix = ''): string {
  const q = (n: string) => `"${n}"`;
  const lines = table.columns.map((c) => `${q(c.name)} ${typeOf(c)}${c.notNull ? ' NOT NULL' : ''}${defaultClause(c)}`);
  lines.push(`PRIMARY KEY (${table.primaryKey.map(q).join(', ')})`);
  for (const fk of table.foreignKeys) {
    lines.push(`FOREIGN KEY (${q(fk.column)}) REFERENCES ${q(fk.table)} ("id") ON DELETE ${fk.onDelete.toUpperCase()}`);
  }
  return `CREATE TABLE ${q(table.name)} (\n  ${lines.join(',\n  ')}\n)${suffix}`;
}

export function defaultClause(column: ColumnModel): string {
  if (column.default === undefined) return '';
  return typeof column.default === 'number'
    ? ` DEFAULT ${column.default}`
    : ` DEFAULT '${column.default.replace(/'/g, "''")}'`;
}

export function renderCreateIndex(index: IndexModel): string {
  const q = (n: string) => `"${n}"`;
  const where = index.where
    ? ` WHERE ${Object.entries(index.where)
        .map(([c, v]) => `${q(c)} = '${v.replace(/'/g, "''")}'`)
        .join(' AND ')}`
    : '';
  return (
    `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${q(index.name)} ON ` +
    `${q(index.table)} (${index.columns.map(q).join(', ')})${where}`
  );
}
