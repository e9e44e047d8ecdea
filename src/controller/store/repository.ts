import { randomBytes } from 'node:crypto';
import type { FieldDef, ResourceDef } from '../../resources/index.js';
import { resource } from '../../resources/index.js';
import { ApiError, invalidField, notFound, renderValue } from '../../protocol/errors.js';
import { normaliseLimit, normaliseOffset, UNLIMITED_REPORTED } from '../../protocol/paging.js';
import { parseQuery } from '../../protocol/zitiql/index.js';
import type { Statement } from 'better-sqlite3';
import { decodeValue, encodeValue, quote, storedFields } from './codec.js';
import { compileQuery, type CompiledQuery, type FilterSchema } from './filter-sql.js';
import { filterSchema, filterableFields, setTable } from './filter-schema.js';

/** A decoded row: common columns and catalogue fields as JS values; `refNames` holds names of referenced entities. */
export interface Row {
  id: string;
  createdAt: string;
  updatedAt: string;
  tags: Record<string, unknown>;
  isSystem: boolean;
  refNames: Record<string, string | null>;
  [field: string]: unknown;
}

export interface ListParams {
  filter?: string;
  limit?: number;
  offset?: number;
  sort?: string;
  roleFilter?: string[];
  roleSemantic?: string;
  /** Restricts the list, e.g. to one identity's authenticators: `e."identityId" = ?`. */
  scope?: { sql: string; params: unknown[] };
}

/** Where a page sits in the whole list (what `meta.pagination` reports). */
export interface Page {
  totalCount: number;
  limit: number;
  offset: number;
}

export interface ListResult extends Page {
  rows: Row[];
}

/** The page a query asks for: `limit`/`skip` in the filter win over the parameters (wire-protocol section 3). */
function pageBounds(compiled: CompiledQuery, params: ListParams): { limit?: number; offset: number } {
  return {
    limit: compiled.limit === 'none' ? undefined : normaliseLimit(compiled.limit ?? params.limit),
    offset: normaliseOffset(compiled.skip ?? params.offset),
  };
}

const ID_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Short random ids over an alphanumeric alphabet (OpenZiti uses ~9-character shortids). */
export function newId(length = 10): string {
  const bytes = randomBytes(length);
  let id = '';
  for (const b of bytes) id += ID_ALPHABET[b % ID_ALPHABET.length];
  return id;
}

/**
 * Generic storage of one catalogue resource. Everything is derived from the catalogue entry: columns, JSON
 * encoding, the side table that makes role attributes filterable as a set, reference names, and the ZitiQL
 * schema. Statements are prepared once per shape and cached.
 */
export class Repository {
  readonly schema: FilterSchema;
  readonly filterableFields: string[];
  private readonly columns: string[];
  private readonly attributeFields: string[];
  private readonly refSelect: string;

  constructor(
    /** Prepares (and caches) a statement on the store's database. */
    private readonly prepare: (sql: string) => Statement<unknown[]>,
    readonly def: ResourceDef,
  ) {
    this.schema = filterSchema(def);
    this.filterableFields = filterableFields(this.schema);
    this.columns = storedFields(def);
    this.attributeFields = this.columns.filter((c) => def.fields[c].type.kind === 'attributes');
    this.refSelect = Object.entries(def.fields)
      .filter(([, f]) => f.type.kind === 'ref' && f.type.as)
      .map(([name, f]) => {
        const target = resource((f.type as { resource: string }).resource);
        return `, (SELECT r.${quote('name')} FROM ${target.table} r WHERE r.${quote('id')} = e.${quote(name)}) AS ${quote(`ref:${name}`)}`;
      })
      .join('');
  }

  find(id: string): Row | undefined {
    const raw = this.prepare(`SELECT e.*${this.refSelect} FROM ${this.def.table} e WHERE e."id" = ?`).get(id);
    return raw ? this.decode(raw as Record<string, unknown>) : undefined;
  }

  get(id: string): Row {
    const row = this.find(id);
    if (!row) throw notFound(this.def.name, id);
    return row;
  }

  list(params: ListParams = {}): ListResult {
    const compiled = this.compile(params);
    const where: string[] = [compiled.where];
    const args: unknown[] = [...compiled.params];
    if (params.scope) {
      where.push(params.scope.sql);
      args.push(...params.scope.params);
    }
    const role = this.roleClause(params.roleFilter, params.roleSemantic);
    if (role) {
      where.push(role.sql);
      args.push(...role.params);
    }
    const whereSql = where.map((w) => `(${w})`).join(' AND ');
    const { limit, offset } = pageBounds(compiled, params);
    const total = (this.prepare(`SELECT count(*) AS n FROM ${this.def.table} e WHERE ${whereSql}`).get(...args) as { n: number }).n;
    const rows = this.prepare(
      `SELECT e.*${this.refSelect} FROM ${this.def.table} e WHERE ${whereSql} ORDER BY ${compiled.orderBy} LIMIT ? OFFSET ?`,
    ).all(...args, limit ?? -1, offset) as Record<string, unknown>[];
    return { rows: rows.map((r) => this.decode(r)), totalCount: total, limit: limit ?? UNLIMITED_REPORTED, offset };
  }

  private compile(params: ListParams): CompiledQuery {
    const query = parseQuery(params.filter ?? '');
    if (query.sort.length === 0 && params.sort) {
      try {
        query.sort = parseQuery(`sort by ${params.sort}`).sort;
      } catch (err) {
        throw new ApiError('INVALID_SORT_IDENTIFIER', { cause: { code: 'UNHANDLED', message: (err as Error).message } });
      }
    }
    return compileQuery(query, this.schema);
  }

  /**
   * `roleFilter`/`roleSemantic` on role-aware lists: `@id` values match by id, `#attr` values by attribute
   * (all of them for AllOf, any for AnyOf), `#all` matches everything; ids and attributes are OR-ed, as policies do.
   */
  private roleClause(roles: string[] | undefined, semantic: string | undefined): { sql: string; params: unknown[] } | undefined {
    if (!roles || roles.length === 0) return undefined;
    const field = this.def.roleAttributes?.field;
    if (!field) throw invalidField('roleFilter', `${this.def.plural} do not accept a role filter`, roles);
    if (semantic !== undefined && semantic !== 'AllOf' && semantic !== 'AnyOf') {
      throw invalidField('roleSemantic', 'must be one of AllOf, AnyOf', semantic);
    }
    const ids: string[] = [];
    const attrs: string[] = [];
    for (const role of roles) {
      if (role.startsWith('@') && role.length > 1) ids.push(role.slice(1));
      else if (role.startsWith('#') && role.length > 1) attrs.push(role.slice(1));
      else throw invalidField('roleFilter', `'${role}' is neither a role attribute (prefixed with #) nor an entity id (prefixed with @)`, role);
    }
    if (attrs.includes('all')) return undefined;
    const parts: string[] = [];
    const params: unknown[] = [];
    if (ids.length) {
      parts.push(`e."id" IN (${ids.map(() => '?').join(', ')})`);
      params.push(...ids);
    }
    if (attrs.length) {
      const table = setTable(this.def, field);
      const marks = attrs.map(() => '?').join(', ');
      if ((semantic ?? 'AllOf') === 'AnyOf') {
        parts.push(`EXISTS (SELECT 1 FROM ${table} s WHERE s."ownerId" = e."id" AND s."value" IN (${marks}))`);
        params.push(...attrs);
      } else {
        parts.push(`(SELECT count(DISTINCT s."value") FROM ${table} s WHERE s."ownerId" = e."id" AND s."value" IN (${marks})) = ?`);
        params.push(...attrs, new Set(attrs).size);
      }
    }
    return { sql: parts.join(' OR '), params };
  }

  /** Inserts a row; `values` are catalogue field values (already validated) plus optional extra columns. */
  insert(values: Record<string, unknown>, opts: { id?: string; now: string; isSystem?: boolean }): string {
    const id = opts.id ?? newId();
    const names = ['id', 'createdAt', 'updatedAt', 'tags', 'isSystem'];
    const args: unknown[] = [id, opts.now, opts.now, JSON.stringify(values.tags ?? {}), opts.isSystem ? 1 : 0];
    for (const name of this.columns) {
      const value = values[name] === undefined ? this.def.fields[name].default : values[name];
      if (value === undefined) continue;
      names.push(name);
      args.push(this.encode(name, value));
    }
    this.unique(values, () =>
      this.prepare(`INSERT INTO ${this.def.table} (${names.map(quote).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`).run(...args),
    );
    this.writeAttributes(id, values);
    return id;
  }

  /** Updates only the given fields (PATCH semantics); `updatedAt` always moves. */
  update(id: string, values: Record<string, unknown>, now: string): void {
    const sets = ['"updatedAt" = ?'];
    const args: unknown[] = [now];
    if (values.tags !== undefined) {
      sets.push('"tags" = ?');
      args.push(JSON.stringify(values.tags ?? {}));
    }
    for (const name of this.columns) {
      if (values[name] === undefined) continue;
      sets.push(`${quote(name)} = ?`);
      args.push(this.encode(name, values[name]));
    }
    const result = this.unique(values, () => this.prepare(`UPDATE ${this.def.table} SET ${sets.join(', ')} WHERE "id" = ?`).run(...args, id));
    if (result.changes === 0) throw notFound(this.def.name, id);
    this.writeAttributes(id, values);
  }

  delete(id: string): void {
    const result = this.prepare(`DELETE FROM ${this.def.table} WHERE "id" = ?`).run(id);
    if (result.changes === 0) throw notFound(this.def.name, id);
  }

  count(): number {
    return (this.prepare(`SELECT count(*) AS n FROM ${this.def.table}`).get() as { n: number }).n;
  }

  /** Distinct role attribute values in use, for `/identity-role-attributes`. */
  attributeValues(field: string, params: ListParams): Page & { values: string[] } {
    const table = setTable(this.def, field);
    const schema: FilterSchema = { idSql: 'v."value"', symbols: { id: { kind: 'scalar', type: 'string', sql: 'v."value"', sortable: true } } };
    const compiled = compileQuery(parseQuery(params.filter ?? ''), schema);
    const { limit, offset } = pageBounds(compiled, params);
    const from = `(SELECT DISTINCT "value" FROM ${table}) v`;
    const total = (this.prepare(`SELECT count(*) AS n FROM ${from} WHERE ${compiled.where}`).get(...compiled.params) as { n: number }).n;
    const values = this.prepare(`SELECT v."value" AS value FROM ${from} WHERE ${compiled.where} ORDER BY ${compiled.orderBy} LIMIT ? OFFSET ?`)
      .all(...compiled.params, limit ?? -1, offset) as { value: string }[];
    return { values: values.map((v) => v.value), totalCount: total, limit: limit ?? UNLIMITED_REPORTED, offset };
  }

  /**
   * Runs a write, turning a unique-index violation into the client error OpenZiti gives (400 COULD_NOT_VALIDATE
   * naming the field and value). The index decides, not a read beforehand, so concurrent writers cannot both win.
   */
  private unique<T>(values: Record<string, unknown>, write: () => T): T {
    try {
      return write();
    } catch (err) {
      const m = /UNIQUE constraint failed: \w+\.(\w+)/.exec((err as Error).message);
      if ((err as { code?: string }).code !== 'SQLITE_CONSTRAINT_UNIQUE' || !m) throw err;
      const field = m[1];
      const value = values[field];
      throw invalidField(field, `duplicate value '${renderValue(value)}' in unique index on ${this.def.plural} store`, value);
    }
  }

  private encode(name: string, value: unknown): unknown {
    const field: FieldDef = this.def.fields[name];
    return encodeValue(field.type, value === null && field.default !== undefined ? field.default : value);
  }

  private writeAttributes(id: string, values: Record<string, unknown>): void {
    for (const field of this.attributeFields) {
      if (values[field] === undefined) continue;
      const table = setTable(this.def, field);
      this.prepare(`DELETE FROM ${table} WHERE "ownerId" = ?`).run(id);
      const insert = this.prepare(`INSERT OR IGNORE INTO ${table} ("ownerId", "value") VALUES (?, ?)`);
      for (const value of (values[field] as string[] | null) ?? []) insert.run(id, value);
    }
  }

  private decode(raw: Record<string, unknown>): Row {
    const row: Row = {
      id: raw.id as string,
      createdAt: raw.createdAt as string,
      updatedAt: raw.updatedAt as string,
      tags: JSON.parse((raw.tags as string) ?? '{}'),
      isSystem: raw.isSystem === 1,
      refNames: {},
    };
    for (const name of this.columns) row[name] = decodeValue(this.def.fields[name].type, raw[name]);
    for (const key of Object.keys(raw)) {
      if (key.startsWith('ref:')) row.refNames[key.slice(4)] = raw[key] as string | null;
    }
    return row;
  }
}
