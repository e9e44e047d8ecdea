import { type Fragment, param, raw, sql } from '../fragment.js';
import { SUBSTRING_SUFFIX } from '../schema-model.js';
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
  // Migration 0007's trigram indexes were PostgreSQL's alone, and so are value counts and write versions (no other
  // controller shares a SQLite file) and folded substring indexes (the FTS5 table folds case): SQLite makes nothing
  // for them.
  createIndex: (index) =>
    index.method === 'substring'
      ? createSubstringIndex(index.name, index.table, index.columns[0])
      : index.method
        ? ''
        : renderCreateIndex(index),
  dropIndex: (name) => (name.endsWith(SUBSTRING_SUFFIX) ? dropSubstringIndex(name) : `DROP INDEX IF EXISTS "${name}"`),
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
  unseekable: (column) => `+${column}`,
  substringCandidates: (index, needle, most) => {
    // The trigram tokenizer finds nothing shorter than a trigram: such a needle has no candidates to offer.
    if ([...needle].length < 3) return undefined;
    // A phrase of the needle's trigrams, in order: its substring, case folded (a superset of contains and icontains).
    const phrase = `"${needle.replace(/"/g, '""')}"`;
    const [fts, rows] = [raw(`"${index}"`), raw(`"${index}_rows"`)];
    const matches = sql`SELECT rowid AS "key" FROM ${fts} WHERE ${fts} MATCH ${param(phrase)} LIMIT ${param(most)}`;
    return sql`SELECT r."id" AS id FROM (${matches}) m JOIN ${rows} r USING ("key")`;
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

/**
 * A substring index on SQLite: a contentless FTS5 table of the column's trigrams (case folded), named as the index,
 * and the map of its rowids to the entity ids (entity tables are WITHOUT ROWID), both kept by triggers in the
 * statement that writes the entity and filled from the rows already there.
 */
function createSubstringIndex(name: string, table: string, column: string): string {
  const [fts, rows, entities, text] = [`"${name}"`, `"${name}_rows"`, `"${table}"`, `"${column}"`];
  const keyOf = (row: string) => `(SELECT "key" FROM ${rows} WHERE "id" = ${row}."id")`;
  const add = (row: string) =>
    `INSERT INTO ${fts} (rowid, ${text}) SELECT "key", ${row}.${text} FROM ${rows} WHERE "id" = ${row}."id";`;
  return `CREATE TABLE ${rows} ("key" INTEGER PRIMARY KEY, "id" TEXT NOT NULL UNIQUE);
CREATE VIRTUAL TABLE ${fts} USING fts5(${text}, content='', contentless_delete=1, tokenize='trigram');
INSERT INTO ${rows} ("id") SELECT "id" FROM ${entities};
INSERT INTO ${fts} (rowid, ${text}) SELECT r."key", e.${text} FROM ${rows} r JOIN ${entities} e USING ("id");
CREATE TRIGGER "${name}_insert" AFTER INSERT ON ${entities} BEGIN
  INSERT INTO ${rows} ("id") VALUES (new."id");
  ${add('new')}
END;
CREATE TRIGGER "${name}_update" AFTER UPDATE OF ${text} ON ${entities} BEGIN
  DELETE FROM ${fts} WHERE rowid = ${keyOf('old')};
  ${add('new')}
END;
CREATE TRIGGER "${name}_delete" AFTER DELETE ON ${entities} BEGIN
  DELETE FROM ${fts} WHERE rowid = ${keyOf('old')};
  DELETE FROM ${rows} WHERE "id" = old."id";
END;`;
}

/** Everything createSubstringIndex made (none of it, for migration 0007's trigram index of the same name). */
function dropSubstringIndex(name: string): string {
  const triggers = ['insert', 'update', 'delete'].map((op) => `DROP TRIGGER IF EXISTS "${name}_${op}";`);
  return `${triggers.join('\n')}\nDROP TABLE IF EXISTS "${name}";\nDROP TABLE IF EXISTS "${name}_rows";`;
}

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
