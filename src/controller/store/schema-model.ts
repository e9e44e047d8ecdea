import { createHash } from 'node:crypto';
import type { FieldDef, OnDelete, ResourceDef } from '../../resources/index.js';
import { KEPT_RESOURCES, type WriteVersionModel } from './write-versions.js';

/**
 * The database schema as data, independent of any SQL dialect. `declaredSchema` derives it from the catalogue;
 * migrations are recorded as operations on it (`migrations/`), and each dialect renders them as DDL. A test
 * replays the recorded history and compares it with the declared schema, so a declaration can never drift from
 * the tables that hold it.
 */
export type ColumnType = 'text' | 'integer' | 'json';

export interface ColumnModel {
  name: string;
  type: ColumnType;
  notNull: boolean;
  /** SQL default as a JSON value (text, number), for columns added to tables that already hold rows. */
  default?: string | number;
}

export interface ForeignKeyModel {
  column: string;
  table: string;
  onDelete: 'cascade' | 'set null' | 'restrict';
}

export interface TableModel {
  name: string;
  columns: ColumnModel[];
  primaryKey: string[];
  foreignKeys: ForeignKeyModel[];
}

export interface IndexModel {
  name: string;
  table: string;
  columns: string[];
  unique: boolean;
  /** Partial index: rows where each column equals the given text value. */
  where?: Record<string, string>;
  /**
   * An index of a text column's trigrams, for `contains` filters (substring tests). `substring`: PostgreSQL's pg_trgm
   * GIN index where that extension is available (else nothing: the filter reads every row); on SQLite an FTS5 table
   * with the trigram tokenizer, kept by triggers (dialects/sqlite.ts). `trigram`, what migration 0007 recorded, is
   * the PostgreSQL index alone: 0011 made every one a `substring` index of the same name.
   *
   * `foldedSubstring`: the same for `icontains`, which compares upper-cased text: on PostgreSQL a pg_trgm GIN index of
   * `upper(column)` (where the extension is available); nothing on SQLite, whose FTS5 table folds case already.
   *
   * `valueCounts`, on a set's side table: how many owners hold each value, a table kept by statement triggers on
   * PostgreSQL (dialects/postgres.ts), so that `anyOf(set) = "x"` is counted by reading one row; nothing on SQLite,
   * which counts the (value, owner) index fast enough.
   *
   * `writeVersion`: the table's writes bump a resource's write version (write-versions.ts) by triggers in the write's
   * transaction on PostgreSQL (dialects/postgres.ts); nothing on SQLite, whose file no other controller shares.
   */
  method?: 'trigram' | 'substring' | 'foldedSubstring' | 'valueCounts' | 'writeVersion';
  /** What a `writeVersion` index bumps, and which writes do not. */
  writeVersion?: WriteVersionModel;
}

export interface SchemaModel {
  tables: Record<string, TableModel>;
  indexes: Record<string, IndexModel>;
}

/** Columns every entity table carries (C3), before the resource's own. */
export const COMMON_COLUMNS: ColumnModel[] = [
  { name: 'id', type: 'text', notNull: true },
  { name: 'createdAt', type: 'text', notNull: true },
  { name: 'updatedAt', type: 'text', notNull: true },
  { name: 'tags', type: 'json', notNull: true, default: '{}' },
  { name: 'isSystem', type: 'integer', notNull: true, default: 0 },
];

/**
 * Fields whose values also live in a side table of (ownerId, value) rows: sets that filters and policies query.
 * Reference lists and roles always (deleting a target finds its holders there); attributes when filterable.
 */
export function isSetField(field: FieldDef): boolean {
  const kind = field.type.kind;
  return kind === 'refList' || kind === 'roles' || (kind === 'attributes' && field.filterable === true);
}

/** Whether a field has a column in the entity table (set fields keep their JSON there too, for reading). */
export function isStored(field: FieldDef): boolean {
  return !field.virtual && !field.computed;
}

export function setTableName(def: ResourceDef, field: string): string {
  return `${def.table}_${field}`;
}

/** The table of which entities a policy's role set selects (role-index.ts keeps it): `(policyId, entityId)` rows. */
export function matchTableName(def: ResourceDef, field: string): string {
  return `${setTableName(def, field)}_matches`;
}

/** Names are what people search by part (`name contains "web"`): the one text field given a substring index. */
export function hasSubstringIndex(name: string, field: FieldDef): boolean {
  return name === 'name' && field.filterable === true && field.type.kind === 'string';
}

/** The name of the substring index of a table's column (on SQLite, its FTS5 table's). */
export function substringIndexName(table: string, column: string): string {
  return identifier(`${table}_${column}${SUBSTRING_SUFFIX}`);
}

/** What names a substring index (`trgm`: both dialects index the column's trigrams). */
export const SUBSTRING_SUFFIX = '_trgm';

/** What names the substring index of a column's upper-cased text (PostgreSQL: for icontains). */
const FOLDED_SUBSTRING_SUFFIX = `_folded${SUBSTRING_SUFFIX}`;

/** What names a table's write-version triggers. */
export const WRITE_VERSION_SUFFIX = '_write_version';

/** What names a set's value counts. */
export const VALUE_COUNTS_SUFFIX = '_counts';

/** Sets whose values are counted (IndexModel `valueCounts`): role attributes, which `anyOf` filters ask most. */
export function hasValueCounts(field: FieldDef): boolean {
  return field.type.kind === 'attributes' && isSetField(field);
}

/** The name of a set's value counts (on PostgreSQL, its table's). */
export function valueCountsName(def: ResourceDef, field: string): string {
  return identifier(`${setTableName(def, field)}_value${VALUE_COUNTS_SUFFIX}`);
}

/** PostgreSQL cuts identifiers at 63 bytes; longer derived names end in a hash instead, so they stay distinct. */
const MAX_IDENTIFIER = 63;

function identifier(name: string): string {
  if (name.length <= MAX_IDENTIFIER) return name;
  return `${name.slice(0, MAX_IDENTIFIER - 9)}_${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}

export function columnType(field: FieldDef): ColumnType {
  switch (field.type.kind) {
    case 'boolean':
    case 'integer':
      return 'integer';
    case 'attributes':
    case 'tags':
    case 'object':
    case 'map':
    case 'refList':
    case 'roles':
    case 'array':
      return 'json';
    default:
      return 'text';
  }
}

/**
 * The field's default as an SQL default (booleans 0/1, structures as JSON text), so rows that predate a column get it.
 */
function sqlDefault(value: unknown): string | number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return Number(value);
  if (typeof value === 'number' || typeof value === 'string') return value;
  return JSON.stringify(value);
}

function foreignKeyAction(onDelete: OnDelete | undefined): ForeignKeyModel['onDelete'] {
  return onDelete === 'cascade' ? 'cascade' : onDelete === 'clear' ? 'set null' : 'restrict';
}

/** The schema the catalogue declares: an entity table per resource, and a side table per set field. */
export function declaredSchema(catalogue: readonly ResourceDef[], resolve: (name: string) => ResourceDef): SchemaModel {
  const schema: SchemaModel = { tables: {}, indexes: {} };
  const addIndex = (index: Omit<IndexModel, 'name'>) => {
    const suffix =
      index.method === 'valueCounts'
        ? VALUE_COUNTS_SUFFIX
        : index.method === 'writeVersion'
          ? WRITE_VERSION_SUFFIX
          : index.method === 'foldedSubstring'
            ? FOLDED_SUBSTRING_SUFFIX
            : index.method
              ? SUBSTRING_SUFFIX
              : index.unique
                ? '_key'
                : '_idx';
    const name = identifier(`${[index.table, ...index.columns].join('_')}${suffix}`);
    schema.indexes[name] = { name, ...index };
  };
  for (const def of catalogue) {
    const table: TableModel = { name: def.table, columns: [...COMMON_COLUMNS], primaryKey: ['id'], foreignKeys: [] };
    schema.tables[def.table] = table;
    addIndex({ table: def.table, columns: ['createdAt'], unique: false });
    const versioned = KEPT_RESOURCES.get(def.name);
    if (versioned) {
      const writeVersion = { resource: def.name, ...versioned };
      addIndex({ table: def.table, columns: [], unique: false, method: 'writeVersion', writeVersion });
    }
    for (const [name, field] of Object.entries(def.fields)) {
      if (!isStored(field)) continue;
      // A field of some kinds only (`when`) is null in the rows of the other kinds.
      const notNull = field.create === 'required' && !field.nullable && !field.when;
      const fallback = sqlDefault(field.default);
      table.columns.push({
        name,
        type: columnType(field),
        notNull,
        ...(fallback === undefined ? {} : { default: fallback }),
      });
      if (field.unique) addIndex({ table: def.table, columns: [name], unique: true });
      if (hasSubstringIndex(name, field)) {
        addIndex({ table: def.table, columns: [name], unique: false, method: 'substring' });
        addIndex({ table: def.table, columns: [name], unique: false, method: 'foldedSubstring' });
      }
      if (field.type.kind === 'ref') {
        table.foreignKeys.push({
          column: name,
          table: resolve(field.type.resource).table,
          onDelete: foreignKeyAction(field.type.onDelete),
        });
        if (!field.unique) addIndex({ table: def.table, columns: [name], unique: false });
      }
      if (isSetField(field)) {
        const side = setTableName(def, name);
        const valueKey: ForeignKeyModel[] =
          field.type.kind === 'refList'
            ? [
                {
                  column: 'value',
                  table: resolve(field.type.resource).table,
                  onDelete: foreignKeyAction(field.type.onDelete),
                },
              ]
            : [];
        schema.tables[side] = {
          name: side,
          columns: [
            { name: 'ownerId', type: 'text', notNull: true },
            { name: 'value', type: 'text', notNull: true },
          ],
          primaryKey: ['ownerId', 'value'],
          foreignKeys: [{ column: 'ownerId', table: def.table, onDelete: 'cascade' }, ...valueKey],
        };
        addIndex({ table: side, columns: ['value', 'ownerId'], unique: false });
        if (hasValueCounts(field)) addIndex({ table: side, columns: ['value'], unique: false, method: 'valueCounts' });
      }
      if (field.type.kind === 'roles') {
        // What the role set selects, kept row by row so access questions are index lookups (docs/architecture.md).
        const matches = matchTableName(def, name);
        schema.tables[matches] = {
          name: matches,
          columns: [
            { name: 'policyId', type: 'text', notNull: true },
            { name: 'entityId', type: 'text', notNull: true },
          ],
          primaryKey: ['policyId', 'entityId'],
          foreignKeys: [
            { column: 'policyId', table: def.table, onDelete: 'cascade' },
            { column: 'entityId', table: resolve(field.type.resource).table, onDelete: 'cascade' },
          ],
        };
        addIndex({ table: matches, columns: ['entityId', 'policyId'], unique: false });
      }
    }
    for (const index of def.indexes ?? []) {
      addIndex({
        table: def.table,
        columns: [...index.columns],
        unique: index.unique ?? false,
        ...(index.where ? { where: { ...index.where } } : {}),
      });
    }
  }
  return schema;
}
