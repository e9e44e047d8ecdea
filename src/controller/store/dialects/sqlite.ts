import { type Fragment, param, raw, sql } from '../fragment.js';
import {
  type ConstraintViolation,
  type Dialect,
  type TagView,
  defaultClause,
  renderCreateIndex,
  renderCreateTable,
} from './dialect.js';

const TYPES = { text: 'TEXT', integer: 'INTEGER', json: 'TEXT' } as const;

/**
 * SQLite. Entity tables are WITHOUT ROWID: lists are ordered by the text id (OpenZiti's default order), which is
 * then the table's own order instead of an index walk with a lookup per row.
 */
export const sqliteDialect: Dialect = {
  name: 'sqlite',
  createTable: (table) => renderCreateTable(table, (c) => TYPES[c.type], ' WITHOUT ROWID'),
  // No trigram index: `contains` reads every row (instr), which SQLite does at a few ms per 100,000 rows.
  createIndex: (index) => (index.method === 'trigram' ? '' : renderCreateIndex(index)),
  dropIndex: (name) => `DROP INDEX IF EXISTS "${name}"`,
  addColumn: (table, c) =>
    `ALTER TABLE "${table}" ADD COLUMN "${c.name}" ${TYPES[c.type]}${c.notNull ? ' NOT NULL' : ''}${defaultClause(c)}`,
  dropColumn: (table, column) => `ALTER TABLE "${table}" DROP COLUMN "${column}"`,
  dropTable: (name) => `DROP TABLE IF EXISTS "${name}"`,
  noLimit: -1,
  // One JSON parameter whatever the list's length: one statement text, prepared once.
  inList: (expr, values) => sql`${expr} IN (SELECT value FROM json_each(${param(JSON.stringify(values))}))`,
  // instr, not LIKE: LIKE is case-insensitive for ASCII in SQLite and treats % and _ as wildcards.
  // `->>` reads a JSON string as text and a JSON number as a number, as the columns take them.
  jsonRows: (columns, rows) => {
    const values = columns.map((_, i) => `value ->> ${i}`).join(', ');
    return sql`SELECT ${raw(values)} FROM json_each(${param(rows)})`;
  },
  containsText: (haystack, needle, ignoreCase) =>
    ignoreCase
      ? sql`instr(upper(${haystack}), upper(${param(needle)})) > 0`
      : sql`instr(${haystack}, ${param(needle)}) > 0`,
  tagValue(tagsSql, key, view) {
    const path = sql`'$."' || ${key} || '"'`;
    const value = sql`json_extract(${raw(tagsSql)}, ${path})`;
    const type = sql`json_type(${raw(tagsSql)}, ${path})`;
    return typedTag(value, type, view);
  },
  tagSort: (tagsSql, key) => `json_extract(${tagsSql}, '$."${key}"')`,
  violation(err) {
    const code = (err as { code?: string })?.code;
    const message = (err as Error)?.message ?? '';
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
      // "UNIQUE constraint failed: enrollments.identityId, enrollments.method"
      const pairs = message
        .replace(/^.*failed: /, '')
        .split(', ')
        .map((p) => p.split('.'));
      return {
        kind: 'unique',
        table: pairs[0]?.[0],
        columns: pairs.map((p) => p[1]).filter(Boolean),
      } satisfies ConstraintViolation;
    }
    if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return { kind: 'foreignKey' };
    return undefined;
  },
};

function typedTag(value: Fragment, type: Fragment, view: TagView): Fragment {
  switch (view) {
    case 'any':
      return value;
    case 'string':
      return sql`(CASE WHEN ${type} = 'text' THEN ${value} END)`;
    case 'number':
      return sql`(CASE WHEN ${type} IN ('integer', 'real') THEN ${value} END)`;
    case 'substring':
      return sql`(CASE WHEN ${type} IN ('text', 'integer', 'real') THEN ${value} END)`;
    case 'boolean':
      return sql`(CASE ${type} WHEN 'true' THEN 1 WHEN 'false' THEN 0 END)`;
    case 'datetime':
      // Normalised like datetime literals, so offsets and missing milliseconds still compare correctly.
      return sql`strftime('%Y-%m-%dT%H:%M:%fZ', CASE WHEN ${type} = 'text' THEN ${value} END)`;
  }
}
