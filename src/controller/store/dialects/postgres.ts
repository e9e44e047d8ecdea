import { type Fragment, param, raw, sql } from '../fragment.js';
import { type IndexModel, VALUE_COUNTS_SUFFIX, WRITE_VERSION_SUFFIX } from '../schema-model.js';
import { WRITE_VERSIONS_TABLE } from '../write-versions.js';
import { type Dialect, type TagView, defaultClause, renderCreateIndex, renderCreateTable } from './dialect.js';

/**
 * PostgreSQL. Text is collated "C" so that lists sort exactly as in SQLite (byte order), whatever the cluster's
 * locale; JSON stays text (the codec is the same for both databases) and is cast to jsonb where a filter reads it.
 */
const TYPES = { text: 'TEXT COLLATE "C"', integer: 'BIGINT', json: 'TEXT' } as const;

/**
 * An ISO-8601 timestamp, as tags must hold one to be compared as a date (a bad cast would fail the query). Bound,
 * never written into SQL text: its `?`s would read as placeholders.
 */
const ISO_DATETIME = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})$';

export const postgresDialect: Dialect = {
  name: 'postgres',
  createTable: (table) => renderCreateTable(table, (c) => TYPES[c.type]),
  createIndex(index) {
    if (index.method === 'valueCounts') return createValueCounts(index.name, index.table);
    if (index.method === 'writeVersion') return createWriteVersion(index);
    return index.method ? createTrigramIndex(index) : renderCreateIndex(index);
  },
  dropIndex: (name) =>
    name.endsWith(VALUE_COUNTS_SUFFIX)
      ? `DROP FUNCTION IF EXISTS "${name}"() CASCADE;\nDROP TABLE IF EXISTS "${name}"`
      : name.endsWith(WRITE_VERSION_SUFFIX)
        ? `DROP FUNCTION IF EXISTS "${name}"() CASCADE`
        : `DROP INDEX IF EXISTS "${name}"`,
  addColumn: (table, c) =>
    `ALTER TABLE "${table}" ADD COLUMN "${c.name}" ${TYPES[c.type]}${c.notNull ? ' NOT NULL' : ''}${defaultClause(c)}`,
  dropColumn: (table, column) => `ALTER TABLE "${table}" DROP COLUMN "${column}"`,
  dropTable: (name) => `DROP TABLE IF EXISTS "${name}"`,
  noLimit: null,
  inList: (expr, values) => ({ sql: `${expr.sql} = ANY(?::text[])`, params: [...expr.params, values] }),
  jsonRows: (columns, rows) => {
    const values = columns.map((type, i) => `(r ->> ${i})::${type === 'integer' ? 'bigint' : 'text'}`).join(', ');
    return sql`SELECT ${raw(values)} FROM json_array_elements(${param(rows)}::json) r`;
  },
  valueCount: (counts, value) =>
    sql`SELECT coalesce((SELECT c."n" FROM ${raw(`"${counts}"`)} c WHERE c."value" = ${value}), 0) AS n`,
  // LIKE with the needle's wildcards escaped is the same byte-wise substring test as strpos, and a trigram index
  // serves it: of the column for contains, of its upper-cased text for icontains (ILIKE folds case by other rules
  // than upper(), which icontains has always compared by).
  containsText: (haystack, needle, ignoreCase) => {
    const pattern = param(`%${needle.replace(/[\\%_]/g, '\\$&')}%`);
    return ignoreCase
      ? sql`upper((${haystack})::text) LIKE upper(${pattern}::text)`
      : sql`(${haystack})::text LIKE ${pattern}`;
  },
  tagValue(tagsSql, key, view) {
    const json = sql`((${raw(tagsSql)})::jsonb -> (${key}::text))`;
    const text = sql`((${raw(tagsSql)})::jsonb ->> (${key}::text))`;
    const type = sql`jsonb_typeof(${json})`;
    return typedTag(json, text, type, view);
  },
  tagSort: (tagsSql, key) => `((${tagsSql})::jsonb -> '${key}')`,
  violation(err) {
    const e = err as { code?: string; constraint?: string; table?: string };
    if (e?.code === '23505') return { kind: 'unique', table: e.table, constraint: e.constraint };
    if (e?.code === '23503') return { kind: 'foreignKey', constraint: e.constraint };
    return undefined;
  },
};

/**
 * A pg_trgm GIN index where the extension is available and this user may create it (PostgreSQL 13+ lets a database
 * owner create a trusted extension); otherwise nothing, and `contains` reads every row as before.
 */
function createTrigramIndex(index: IndexModel): string {
  const text = index.method === 'foldedSubstring' ? `upper("${index.columns[0]}")` : `"${index.columns[0]}"`;
  const column = `${text} gin_trgm_ops`;
  const create = `CREATE INDEX IF NOT EXISTS "${index.name}" ON "${index.table}" USING gin (${column})`;
  return `DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    ${create};
  END IF;
EXCEPTION WHEN insufficient_privilege THEN NULL;
END $$`;
}

/**
 * A set's value counts: a table of how many side rows (owners, since an owner holds a value once) hold each value,
 * filled from the rows already there and kept by statement triggers in the statement that writes the side rows
 * (their cascaded deletes included), each change one upsert per value, in value order so that two writers lock the
 * same rows in the same order.
 */
function createValueCounts(name: string, side: string): string {
  const counts = `"${name}"`;
  const change = (rows: string, sign: string) =>
    `INSERT INTO ${counts} ("value", "n") SELECT "value", ${sign}count(*) FROM ${rows} GROUP BY "value" ` +
    `ORDER BY "value" ON CONFLICT ("value") DO UPDATE SET "n" = ${counts}."n" + excluded."n";`;
  const trigger = (op: string, rows: string) =>
    `CREATE TRIGGER "${name}_${op.toLowerCase()}" AFTER ${op} ON "${side}" REFERENCING ${rows} ` +
    `FOR EACH STATEMENT EXECUTE FUNCTION ${counts}();`;
  return `CREATE TABLE ${counts} ("value" ${TYPES.text} NOT NULL PRIMARY KEY, "n" BIGINT NOT NULL);
INSERT INTO ${counts} ("value", "n") SELECT "value", count(*) FROM "${side}" GROUP BY "value";
CREATE FUNCTION ${counts}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN ${change('removed', '-')} END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN ${change('added', '')} END IF;
  RETURN NULL;
END $$;
${trigger('INSERT', 'NEW TABLE AS added')}
${trigger('DELETE', 'OLD TABLE AS removed')}
${trigger('UPDATE', 'OLD TABLE AS removed NEW TABLE AS added')}`;
}

/**
 * A table's write versions: a function named as the index that bumps the resource's row of the versions table
 * (made with the first), and the triggers that run it in the statement that writes the table, so no write can skip
 * it, not even one made outside the repositories or by a cascade. Every statement, or with `ignoring` each row
 * updated beyond those columns or deleted. Controllers before migration 0012 made one shared function and its
 * triggers at every start: dropped with it, the versions they counted kept.
 */
function createWriteVersion({ name, table, writeVersion }: IndexModel): string {
  if (!writeVersion) throw new Error(`index ${name}: a write version that names no resource`);
  const { resource, ignoring } = writeVersion;
  const versions = `"${WRITE_VERSIONS_TABLE}"`;
  return `CREATE TABLE IF NOT EXISTS ${versions} ("resource" text PRIMARY KEY, "version" bigint NOT NULL);
DROP FUNCTION IF EXISTS "ctl_bump_write_version"() CASCADE;
CREATE FUNCTION "${name}"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO ${versions} ("resource", "version") VALUES (${literal(resource)}, 1)
    ON CONFLICT ("resource") DO UPDATE SET "version" = ${versions}."version" + 1;
  RETURN NULL;
END $$;
${writeVersionTriggers(name, `"${table}"`, ignoring)}`;
}

function writeVersionTriggers(name: string, on: string, ignoring: readonly string[] | undefined): string {
  const bump = `EXECUTE FUNCTION "${name}"()`;
  if (!ignoring) {
    return `CREATE TRIGGER "${name}" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${on} FOR EACH STATEMENT ${bump};`;
  }
  const beyond = (row: string) => `(to_jsonb(${row}) - ARRAY[${ignoring.map(literal).join(', ')}]::text[])`;
  return `CREATE TRIGGER "${name}_update" AFTER UPDATE ON ${on} FOR EACH ROW
  WHEN (${beyond('OLD')} IS DISTINCT FROM ${beyond('NEW')}) ${bump};
CREATE TRIGGER "${name}_delete" AFTER DELETE ON ${on} FOR EACH ROW ${bump};`;
}

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

function typedTag(json: Fragment, text: Fragment, type: Fragment, view: TagView): Fragment {
  switch (view) {
    case 'any':
      // Compared with a bound literal of any type: the text form, as SQLite's json_extract gives for strings.
      return text;
    case 'string':
      return sql`(CASE WHEN ${type} = 'string' THEN ${text} END)`;
    case 'number':
      return sql`(CASE WHEN ${type} = 'number' THEN (${text})::double precision END)`;
    case 'substring':
      return sql`(CASE WHEN ${type} IN ('string', 'number') THEN ${text} END)`;
    case 'boolean':
      return sql`(CASE ${type} WHEN 'boolean' THEN (CASE WHEN (${json})::boolean THEN 1 ELSE 0 END) END)`;
    case 'datetime': {
      const utc = sql`to_char((${text})::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
      return sql`(CASE WHEN ${type} = 'string' AND ${text} ~ ${param(ISO_DATETIME)} THEN ${utc} END)`;
    }
  }
}
