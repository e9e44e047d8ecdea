import { randomBytes } from 'node:crypto';
import type { FieldDef, ResourceDef } from '../../resources/index.js';
import { ApiError, invalidField, notFound, renderValue } from '../../protocol/errors.js';
import { MAX_ALL_ROWS, normaliseLimit, normaliseOffset, UNLIMITED_REPORTED } from '../../protocol/paging.js';
import { parseQuery } from '../../protocol/zitiql/index.js';
import { decodeJson, decodeValue, encodeValue } from './codec.js';
import type { Driver } from './driver.js';
import { compileQuery, type CompiledQuery, type FilterSchema, NO_FILTER } from './filter-sql.js';
import { filterSchema, filterableFields } from './filter-schema.js';
import { type Fragment, join, param, quote, raw, sql } from './fragment.js';
import { insertRows } from './insert-rows.js';
import type { RoleIndex } from './role-index.js';
import { compileRowDecoder, type RowDecoder } from './row-decoder.js';
import { COMMON_COLUMNS, columnType, isSetField, isStored, setTableName } from './schema-model.js';

/** A decoded row: common columns and stored fields as JS values; `refNames` holds names of referenced entities. */
export interface Row {
  id: string;
  createdAt: string;
  updatedAt: string;
  tags: Record<string, unknown>;
  isSystem: boolean;
  refNames: Record<string, string | null>;
  [field: string]: unknown;
}

/** What a lookup reads: some columns only, and fields of referenced entities (joined) beside them. */
export interface LookupOptions {
  columns?: readonly string[];
  include?: Record<string, readonly string[]>;
}

/**
 * A read a repository built and has not run: its statement, and how its rows are decoded. `findAll` runs one;
 * `Store.readTogether` runs several in one round trip.
 */
export interface Lookup<T> extends Fragment {
  decode(rows: Record<string, unknown>[]): T;
}

/**
 * Conditions on stored scalar fields: a value, a list of values (any of them), null (no value),
 * below a bound, or not a value.
 */
export type Where = Record<
  string,
  string | number | boolean | null | readonly string[] | { lt: string | number } | { ne: string }
>;

/** Restricts a list to part of the resource, e.g. one identity's authenticators or the configs of a service. */
export type Scope =
  | { where: Where }
  /** Entities whose id is in `owner`'s set field (`/rt/{id}/configs`). */
  | { memberOf: { def: ResourceDef; field: string; ownerId: string } }
  /** Entities whose own set field holds `value` (`/configs/{id}/rt`). */
  | { holding: { field: string; value: string } }
  /** Entities among these ids (computed relations). */
  | { ids: readonly string[] }
  /** Entities that one of these policies' role set selects (by id, attribute or `#all`). */
  | { selectedBy: { index: RoleIndex; policyIds: readonly string[] } }
  /** Policies whose role set selects the entity. */
  | { selecting: { index: RoleIndex; entityId: string } };

export interface ListParams {
  filter?: string;
  limit?: number;
  offset?: number;
  sort?: string;
  roleFilter?: string[];
  roleSemantic?: string;
  scope?: Scope;
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

/** A write a repository made: which resource, how, and (for an update) which fields it set. */
export interface WriteEvent {
  resource: string;
  op: 'insert' | 'update' | 'delete';
  fields?: string[];
}

/** What one write changes in the access index (Repository.accessChanges). */
interface AccessChanges {
  policy: boolean;
  entity: boolean;
}

/** Another resource's field that points at this one, and what deleting the target does to it. */
export interface Referrer {
  def: ResourceDef;
  field: string;
  kind: 'ref' | 'refList' | 'roles';
  onDelete: 'restrict' | 'cascade' | 'clear';
}

const ID_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * A condition that narrows a list, and the statement that counts the entities it keeps when it is the only one: one
 * that reads an index of its own instead of testing every entity (CompiledQuery.count, RoleIndex.countSelected).
 */
interface Narrowing {
  where: Fragment;
  count?: Fragment;
  /** The same condition tested entity by entity, for a page of a set that holds most of the table (walkPays). */
  walked?: Fragment;
}

/** A row written: its id and the field values written. */
interface Written {
  id: string;
  values: Record<string, unknown>;
}

/** A row to insert: its field values (already validated) plus server and internal fields, and its id if chosen. */
export interface NewRow {
  values: Record<string, unknown>;
  id?: string;
}

/**
 * Rows per batch of insertMany: the lists its statements bind (ids, attributes) stay small enough for PostgreSQL to
 * compare with each row it reads.
 */
const INSERT_BATCH = 1000;

/** The columns of a set's side table (schema-model.ts). */
const SIDE_COLUMNS = [
  { name: 'ownerId', type: 'text' },
  { name: 'value', type: 'text' },
] as const;

/** How many entities that refer to one being deleted a refusal names; the rest are "and others". */
const HOLDERS_NAMED = 5;

/** Short random ids over an alphanumeric alphabet (OpenZiti uses ~9-character shortids). */
export function newId(length = 10): string {
  const bytes = randomBytes(length);
  let id = '';
  for (const b of bytes) id += ID_ALPHABET[b % ID_ALPHABET.length];
  return id;
}

/** The page a query asks for: `limit`/`skip` in the filter win over the parameters (wire-protocol section 3). */
function pageBounds(compiled: CompiledQuery, params: ListParams): { limit?: number; offset: number } {
  return {
    limit: compiled.limit === 'none' ? undefined : normaliseLimit(compiled.limit ?? params.limit),
    offset: normaliseOffset(compiled.skip ?? params.offset),
  };
}

/** What a page without a limit reports: "all" when it holds everything, the cap when the cap cut it short. */
function reportedLimit(limit: number | undefined, total: number): number {
  if (limit !== undefined) return limit;
  return total > MAX_ALL_ROWS ? MAX_ALL_ROWS : UNLIMITED_REPORTED;
}

/**
 * The page of a list that has ZitiQL symbols but nothing stored behind them (the fabric's links and circuits, which
 * only a data plane makes): the filter is checked against the symbols and the page reported as a stored list's is.
 */
export function emptyPage(schema: FilterSchema, params: ListParams): Page {
  const { limit, offset } = pageBounds(compileQuery(parseQuery(params.filter ?? ''), schema), params);
  return { totalCount: 0, limit: reportedLimit(limit, 0), offset };
}

/**
 * A lookup of one parameter made a function of it: its statement text and decoder are made once, where building a
 * lookup's shape, text and conditions at every call cost a GET by id 2 to 3 µs (docs/performance.md).
 */
export function lookupOfValue<T>(lookup: Lookup<T>): (value: string) => Lookup<T> {
  if (lookup.params.length !== 1) throw new Error(`not a lookup of one parameter: ${lookup.sql}`);
  const { sql, decode } = lookup;
  return (value) => ({ sql, params: [value], decode });
}

/**
 * Generic storage of one catalogue resource, in any dialect. Everything is derived from the catalogue entry:
 * columns, JSON encoding, the side tables that make sets (attributes, reference lists, roles) queryable, reference
 * names, the ZitiQL schema, and what deleting an entity does to those that refer to it.
 */
export class Repository {
  readonly schema: FilterSchema;
  readonly filterableFields: string[];
  private readonly columns: string[];
  private readonly setFields: string[];
  private readonly refSelect: string;
  /**
   * Every column of the table this release knows, by name (never `e.*`): a column that a newer release's migration
   * adds while this one still serves (a rolling upgrade) is not read, and PostgreSQL does not refuse the statements
   * prepared before it ("cached plan must not change result type").
   */
  private readonly entityColumns: string;
  private readonly table: string;
  /** `find`'s statement: one text, made once. */
  private readonly findText: string;
  private readonly decodeRow: RowDecoder;
  /**
   * Lookups' statement texts by shape (which columns, which conditions), each made once: the driver finds its
   * prepared statement by the text, and hashing a fresh copy of a long one on every lookup cost more than making it.
   * The shapes are the code's own (a handful per resource), so the map stays small.
   */
  private readonly texts = new Map<string, string>();

  constructor(
    private readonly driver: Driver,
    readonly def: ResourceDef,
    private readonly resolve: (name: string) => ResourceDef,
    /** Fields of other resources that point at this one (filled by the store once every repository exists). */
    readonly referrers: Referrer[] = [],
    /** Unique index name -> its fields, to name the field of a violation the database reports by constraint. */
    private readonly uniqueIndexes: Record<string, string[]> = {},
    /** The access indexes of this resource's own role sets, and of the role sets that select this resource. */
    private readonly roleIndexes: { own: readonly RoleIndex[]; selectedBy: readonly RoleIndex[] } = {
      own: [],
      selectedBy: [],
    },
    /** Told of every write, once the statement ran (caches that depend on this resource drop what it changed). */
    private readonly onWrite: (event: WriteEvent) => void = () => {},
  ) {
    this.table = quote(def.table);
    this.schema = filterSchema(def);
    this.filterableFields = filterableFields(this.schema);
    this.columns = Object.keys(def.fields).filter((name) => isStored(def.fields[name]));
    this.setFields = this.columns.filter((c) => isSetField(def.fields[c]));
    const known = [...COMMON_COLUMNS.map((c) => c.name), ...this.columns];
    this.entityColumns = known.map((c) => `e.${quote(c)}`).join(', ');
    const referenced = Object.entries(def.fields).filter(([, f]) => f.type.kind === 'ref' && f.type.as && isStored(f));
    this.refSelect = referenced
      .map(([name, f]) => {
        const target = resolve((f.type as { resource: string }).resource);
        return (
          `, (SELECT r."name" FROM ${quote(target.table)} r WHERE ` +
          `r."id" = e.${quote(name)}) AS ${quote(`ref:${name}`)}`
        );
      })
      .join('');
    this.decodeRow = compileRowDecoder(
      def,
      this.columns,
      referenced.map(([name]) => name),
    );
    this.findText = `SELECT ${this.entityColumns}${this.refSelect} FROM ${this.table} e WHERE e."id" = ?`;
  }

  private get dialect() {
    return this.driver.dialect;
  }

  async find(id: string): Promise<Row | undefined> {
    const lookup = this.findLookup(id);
    const raw = await this.driver.get<Record<string, unknown>>(lookup.sql, lookup.params);
    return lookup.decode(raw ? [raw] : []);
  }

  /** What `find` runs, to be run with other lookups (`Store.readTogether`): a read model's row with its rows. */
  findLookup(id: string): Lookup<Row | undefined> {
    return {
      sql: this.findText,
      params: [id],
      decode: (rows) => (rows.length ? this.decode(rows[0]) : undefined),
    };
  }

  async get(id: string): Promise<Row> {
    const row = await this.find(id);
    if (!row) throw notFound(this.def.name, id);
    return row;
  }

  async findOne(where: Where, opts: LookupOptions = {}): Promise<Row | undefined> {
    return (await this.findAll(where, { ...opts, limit: 1 }))[0];
  }

  /**
   * Rows matching `where`, in id order (at most `limit`): the store's own lookups, so without the names of
   * referenced entities (`refNames` is empty), which only read models need and which cost a subquery per row.
   * `columns` reads only those fields (and the common ones): hot paths read a few columns of wide rows.
   * `include` reads fields of the entity a reference points at in the same statement (`row.included[field]`).
   */
  async findAll(where: Where, opts: LookupOptions & { limit?: number } = {}): Promise<Row[]> {
    const lookup = this.lookup(where, opts);
    return lookup.decode(await this.driver.all(lookup.sql, lookup.params));
  }

  /** What `findAll` runs, to be run with other lookups (`Store.readTogether`). */
  lookup(where: Where, opts: LookupOptions & { limit?: number } = {}): Lookup<Row[]> {
    const cond = this.whereClause(where);
    // No LIMIT unless one is asked for: SQLite plans `IN (SELECT value FROM json_each(?))` 2-3 times slower with one.
    const limit = opts.limit === undefined ? '' : ` LIMIT ${Number(opts.limit)}`;
    const select = this.selectShape(opts);
    return {
      sql: this.text(`lookup ${select} where${cond.shape}${limit}`, () => {
        return `SELECT ${this.selectFrom(select, opts)} WHERE ${cond.sql} ORDER BY e."id"${limit}`;
      }),
      params: cond.params,
      decode: (rows) => rows.map((r) => this.decode(r, opts.include)),
    };
  }

  /** The statement text of this shape, made by `make` the first time it is asked for. */
  private text(shape: string, make: () => string): string {
    let text = this.texts.get(shape);
    if (text === undefined) {
      text = make();
      this.texts.set(shape, text);
    }
    return text;
  }

  /** Which columns and joined fields a lookup reads, as a key of its shape. */
  private selectShape(opts: LookupOptions): string {
    return `${opts.columns?.join(',') ?? '*'}|${opts.include ? JSON.stringify(opts.include) : ''}`;
  }

  /** `<columns> FROM <table> e [JOIN ...]` of a lookup of this shape (`selectShape`). */
  private selectFrom(shape: string, opts: LookupOptions): string {
    return this.text(`select ${shape}`, () => {
      const select = [
        opts.columns
          ? ['id', 'createdAt', 'updatedAt', 'tags', 'isSystem', ...opts.columns].map((c) => `e.${quote(c)}`).join(', ')
          : this.entityColumns,
      ];
      const joins: string[] = [];
      for (const [i, [field, columns]] of Object.entries(opts.include ?? {}).entries()) {
        const type = this.def.fields[field]?.type;
        if (type?.kind !== 'ref') throw new Error(`${this.def.name}.${field} is not a reference`);
        joins.push(` JOIN ${quote(this.resolve(type.resource).table)} j${i} ON j${i}."id" = e.${quote(field)}`);
        for (const c of columns) select.push(`j${i}.${quote(c)} AS ${quote(`include:${field}:${c}`)}`);
      }
      return `${select.join(', ')} FROM ${this.table} e${joins.join('')}`;
    });
  }

  /** The distinct values of one stored field among the rows matching `where` (e.g. which identities have a session). */
  async distinct(field: string, where: Where): Promise<unknown[]> {
    const lookup = this.distinctLookup(field, where);
    return lookup.decode(await this.driver.all(lookup.sql, lookup.params));
  }

  /** What `distinct` runs, to be run with other lookups (`Store.readTogether`). */
  distinctLookup(field: string, where: Where): Lookup<unknown[]> {
    if (!this.columns.includes(field)) throw new Error(`${this.def.name} has no stored field '${field}'`);
    const cond = this.whereClause(where);
    const at = { entity: this.def.label, id: '(several)', field };
    return {
      sql: this.text(`distinct ${field} where${cond.shape}`, () => {
        return `SELECT DISTINCT e.${quote(field)} AS v FROM ${this.table} e WHERE ${cond.sql}`;
      }),
      params: cond.params,
      decode: (rows) => rows.map((r) => decodeValue(this.def.fields[field].type, r.v, at)),
    };
  }

  async count(where: Where = {}): Promise<number> {
    const cond = this.whereClause(where);
    return (await this.driver.get<{ n: number }>(
      `SELECT count(*) AS n FROM ${this.table} e WHERE ${cond.sql}`,
      cond.params,
    ))!.n;
  }

  async exists(where: Where): Promise<boolean> {
    return (await this.findOne(where)) !== undefined;
  }

  async list(params: ListParams = {}): Promise<ListResult> {
    const compiled = this.compile(params);
    // What narrows the list, each with the statement that counts it alone when it has one.
    const parts: Narrowing[] = [];
    const filter = { sql: compiled.where, params: compiled.params };
    if (compiled.where !== NO_FILTER) parts.push({ where: filter, count: compiled.count });
    const candidates = compiled.candidates && (await this.substringCandidates(compiled.candidates));
    if (candidates) parts.push({ where: this.dialect.inList(raw('e."id"'), candidates) });
    if (params.scope) parts.push(await this.scopeClause(params.scope));
    const role = this.roleClause(params.roleFilter, params.roleSemantic);
    if (role) parts.push({ where: role });
    const whereOf = (walked: boolean) =>
      parts.length
        ? join(
            parts.map((p) => sql`(${(walked && p.walked) || p.where})`),
            ' AND ',
          )
        : raw(NO_FILTER);
    const where = whereOf(false);
    const { limit, offset } = pageBounds(compiled, params);
    const counted = { sql: `SELECT count(*) AS n FROM ${this.table} e WHERE ${where.sql}`, params: where.params };
    const count = (parts.length === 1 && parts[0].count) || counted;
    const pageOf = (w: Fragment) =>
      this.driver.all<Record<string, unknown>>(
        `SELECT ${this.entityColumns}${this.refSelect} FROM ${this.table} e WHERE ${w.sql} ` +
          `ORDER BY ${compiled.orderBy} LIMIT ? OFFSET ?`,
        [...w.params, limit ?? MAX_ALL_ROWS, offset],
      );
    const totalOf = () => this.driver.get<{ n: number }>(count.sql, count.params).then((r) => r!.n);
    let total: number;
    let rows: Record<string, unknown>[];
    if (parts.some((p) => p.walked)) {
      // The page's plan depends on the total: counted first (SQLite, where the choice is offered, runs one at a time).
      total = await totalOf();
      rows = await pageOf(whereOf(await this.walkPays(total, offset + (limit ?? MAX_ALL_ROWS))));
    } else {
      // Side by side: on PostgreSQL outside a transaction, two pooled connections answer at once.
      [total, rows] = await Promise.all([totalOf(), pageOf(where)]);
    }
    return { rows: rows.map((r) => this.decode(r)), totalCount: total, limit: reportedLimit(limit, total), offset };
  }

  /**
   * Whether walking the table in the list's order, testing each entity, reads less than the condition's own plan for
   * a page ending at row `end`: the walk visits about end × entities ÷ total entities, the other plan at least
   * `total` rows (an access list reads every match row of its policies) before its first.
   */
  private async walkPays(total: number, end: number): Promise<boolean> {
    if (total === 0) return false;
    const entities = (await this.driver.get<{ n: number }>(`SELECT count(*) AS n FROM ${this.table}`))!.n;
    return end * entities < total * total;
  }

  /** The ids a substring index offers for the filter (CompiledQuery.candidates), unless they are too many. */
  private async substringCandidates(
    candidates: NonNullable<CompiledQuery['candidates']>,
  ): Promise<string[] | undefined> {
    const rows = await this.driver.all<{ id: string }>(candidates.sql, candidates.params);
    return rows.length <= candidates.most ? rows.map((r) => r.id) : undefined;
  }

  private compile(params: ListParams): CompiledQuery {
    const query = parseQuery(params.filter ?? '');
    if (query.sort.length === 0 && params.sort) {
      try {
        query.sort = parseQuery(`sort by ${params.sort}`).sort;
      } catch (err) {
        throw new ApiError('INVALID_SORT_IDENTIFIER', {
          cause: { code: 'UNHANDLED', message: (err as Error).message },
        });
      }
    }
    return compileQuery(query, this.schema, this.dialect);
  }

  /**
   * Conditions as SQL text and parameters, written with plain strings, as every store lookup runs it; and their
   * shape, the text's key among a lookup's (`text`): the fields and how each is compared.
   */
  private whereClause(where: Where): Fragment & { shape: string } {
    let text = '1 = 1';
    let shape = '';
    const params: unknown[] = [];
    for (const name in where) {
      const value = where[name];
      if (name !== 'id' && !this.columns.includes(name))
        throw new Error(`${this.def.name} has no stored field '${name}'`);
      const column = `e."${name}"`;
      // How the field is compared: its part of the shape.
      let op: string;
      if (value === null) {
        op = 'IS NULL';
        text += ` AND ${column} IS NULL`;
      } else if (Array.isArray(value) && value.length === 1) {
        op = '=';
        text += ` AND ${column} = ?`;
        params.push(value[0]);
      } else if (Array.isArray(value)) {
        op = 'IN';
        const list = this.dialect.inList(raw(column), value as string[]);
        text += ` AND ${list.sql}`;
        params.push(...list.params);
      } else if (typeof value === 'object') {
        const [compare, operand] = 'lt' in value ? ['<', value.lt] : ['IS DISTINCT FROM', (value as { ne: string }).ne];
        op = compare;
        text += ` AND ${column} ${compare} ?`;
        params.push(operand);
      } else {
        op = '=';
        text += ` AND ${column} = ?`;
        params.push(typeof value === 'boolean' ? Number(value) : value);
      }
      shape += ` ${name} ${op}`;
    }
    return { sql: text, params, shape };
  }

  private async scopeClause(scope: Scope): Promise<Narrowing> {
    if ('where' in scope) return { where: this.whereClause(scope.where) };
    if ('selectedBy' in scope) {
      const { index, policyIds } = scope.selectedBy;
      if (policyIds.length === 0) return { where: raw('1 = 0') };
      if (await index.anySelectsAll(policyIds)) return { where: raw(NO_FILTER) };
      const walked = index.selectedByWalk('e."id"', policyIds);
      const narrowing = { where: index.selectedBy('e."id"', policyIds), count: index.countSelected(policyIds) };
      return walked ? { ...narrowing, walked } : narrowing;
    }
    if ('selecting' in scope) {
      const { index, entityId } = scope.selecting;
      return { where: sql`e."id" IN (${index.selecting(entityId)})` };
    }
    if ('ids' in scope) return { where: this.dialect.inList(raw('e."id"'), scope.ids) };
    if ('memberOf' in scope) {
      const { def, field, ownerId } = scope.memberOf;
      const side = raw(quote(setTableName(def, field)));
      return { where: sql`e."id" IN (SELECT s."value" FROM ${side} s WHERE s."ownerId" = ${param(ownerId)})` };
    }
    const side = quote(setTableName(this.def, scope.holding.field));
    const value = param(scope.holding.value);
    return { where: sql`EXISTS (SELECT 1 FROM ${raw(side)} s WHERE s."ownerId" = e."id" AND s."value" = ${value})` };
  }

  /**
   * `roleFilter`/`roleSemantic` on role-aware lists: `@id` values match by id, `#attr` values by attribute
   * (all of them for AllOf, any for AnyOf), `#all` matches everything; ids and attributes are OR-ed, as policies do.
   */
  private roleClause(roles: string[] | undefined, semantic: string | undefined): Fragment | undefined {
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
      else
        throw invalidField(
          'roleFilter',
          `'${role}' is neither a role attribute (prefixed with #) nor an entity id (prefixed with @)`,
          role,
        );
    }
    if (attrs.includes('all')) return undefined;
    const parts: Fragment[] = [];
    if (ids.length) parts.push(this.dialect.inList(raw('e."id"'), ids));
    if (attrs.length) {
      const side = raw(quote(setTableName(this.def, field)));
      const found = this.dialect.inList(raw('s."value"'), attrs);
      if ((semantic ?? 'AllOf') === 'AnyOf')
        parts.push(sql`EXISTS (SELECT 1 FROM ${side} s WHERE s."ownerId" = e."id" AND ${found})`);
      else {
        const needed = param(new Set(attrs).size);
        parts.push(
          sql`(SELECT count(DISTINCT s."value") FROM ${side} s WHERE s."ownerId" = e."id" AND ${found}) = ${needed}`,
        );
      }
    }
    return join(parts, ' OR ');
  }

  /** Inserts a row; `values` are field values (already validated) plus server and internal fields. */
  async insert(
    values: Record<string, unknown>,
    opts: { id?: string; now: string; isSystem?: boolean },
  ): Promise<string> {
    const [id] = await this.insertMany([{ values, id: opts.id }], opts);
    return id;
  }

  /**
   * Inserts rows (in one transaction) a thousand at a time (seeding a store): the rows, each set's side rows and
   * what the access index gains are each bound as one parameter, so a thousand rows cost a handful of round trips on
   * PostgreSQL instead of several per row. Returns the ids, in order.
   */
  async insertMany(rows: ReadonlyArray<NewRow>, opts: { now: string; isSystem?: boolean }): Promise<string[]> {
    if (rows.length <= INSERT_BATCH) return this.insertBatch(rows, opts);
    return this.driver.tx(async () => {
      const ids: string[] = [];
      for (let at = 0; at < rows.length; at += INSERT_BATCH) {
        ids.push(...(await this.insertBatch(rows.slice(at, at + INSERT_BATCH), opts)));
      }
      return ids;
    });
  }

  private async insertBatch(rows: ReadonlyArray<NewRow>, opts: { now: string; isSystem?: boolean }): Promise<string[]> {
    const ids = rows.map((r) => r.id ?? newId());
    // Every column a row sets; a row without one gets NULL, as it would were the column left out of its INSERT.
    const columns = this.columns.filter((name) => rows.some((r) => this.insertedValue(name, r.values) !== undefined));
    const records = rows.map((r, i) => [
      ids[i],
      opts.now,
      opts.now,
      JSON.stringify(r.values.tags ?? {}),
      opts.isSystem ? 1 : 0,
      ...columns.map((name) => {
        const value = this.insertedValue(name, r.values);
        return value === undefined ? null : this.encode(name, value);
      }),
    ]);
    const typed = [...COMMON_COLUMNS, ...columns.map((name) => ({ name, type: columnType(this.def.fields[name]) }))];
    const changes = rows.map((r) => this.accessChanges(r.values, true));
    await this.withAccessLock(
      changes.some((c) => c.policy || c.entity),
      async () => {
        // A duplicate in a batch of one names its value; in a larger batch only its field is known.
        const named = rows.length === 1 ? rows[0].values : undefined;
        await this.unique(named, () => insertRows(this.driver, this.def.table, typed, records));
        await this.writeSets(
          rows.map((r, i) => ({ id: ids[i], values: r.values })),
          true,
        );
        for (const [i, r] of rows.entries()) if (changes[i].policy) await this.refreshPolicies(ids[i], r.values, true);
        const attributed = rows.flatMap((r, i) => (changes[i].entity ? [{ id: ids[i], values: r.values }] : []));
        await this.refreshEntities(attributed, true);
      },
    );
    this.onWrite({ resource: this.def.name, op: 'insert' });
    return ids;
  }

  /** The value an insert stores for a field: the given one, else the field's default (undefined: none). */
  private insertedValue(name: string, values: Record<string, unknown>): unknown {
    return values[name] === undefined ? this.def.fields[name].default : values[name];
  }

  /** Inserts a built-in row unless one with its id exists (built-ins are never overwritten). */
  async ensure(values: Record<string, unknown> & { id: string }, now: string): Promise<void> {
    if (await this.find(values.id)) return;
    await this.insert(values, { id: values.id, now, isSystem: true });
  }

  /**
   * Updates only the given fields (PATCH semantics); `updatedAt` becomes `now` (bookkeeping writes pass the old value).
   */
  async update(id: string, values: Record<string, unknown>, now: string): Promise<void> {
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
    const changes = this.accessChanges(values, false);
    await this.withAccessLock(changes.policy || changes.entity, async () => {
      const update = `UPDATE ${this.table} SET ${sets.join(', ')} WHERE "id" = ?`;
      const result = await this.unique(values, () => this.driver.run(update, [...args, id]));
      if (result.changes === 0) throw notFound(this.def.name, id);
      const fields = Object.keys(values).filter((k) => values[k] !== undefined);
      this.onWrite({ resource: this.def.name, op: 'update', fields });
      await this.writeSets([{ id, values }]);
      if (changes.policy) await this.refreshPolicies(id, values, false);
      if (changes.entity) await this.refreshEntities([{ id, values }], false);
    });
  }

  /** What a write of `values` changes in the access index: what its policy selects, what selects its entity. */
  private accessChanges(values: Record<string, unknown>, created: boolean): AccessChanges {
    const { own, selectedBy } = this.roleIndexes;
    const attributesField = this.def.roleAttributes?.field;
    const attributes = attributesField && (values[attributesField] as string[] | null | undefined);
    const roles = values.semantic !== undefined || own.some((i) => values[i.field] !== undefined);
    return {
      policy: own.length > 0 && (created || roles),
      // Nothing can select a new entity without attributes: nothing names its fresh id yet.
      entity: selectedBy.length > 0 && (created ? (attributes?.length ?? 0) > 0 : attributes !== undefined),
    };
  }

  /**
   * Runs a write; one that changes the access index (`needed`) runs in a transaction that first takes the index's
   * lock, before it locks any row. Each refresh reads what others committed: without the lock, a new identity and
   * a new policy over its attribute, written at once on PostgreSQL, would each miss the other's uncommitted rows and
   * neither would add their match (docs/architecture.md, "The access index"). Deletes take it too: a refresh adding
   * a match for the row being deleted would fail on its foreign key.
   */
  private withAccessLock<T>(needed: boolean, write: () => Promise<T>): Promise<T> {
    if (!needed) return write();
    return this.driver.tx(async () => {
      await this.driver.hold('access-index');
      return write();
    });
  }

  /**
   * Keeps the access index in step with a write, in its transaction: a policy whose roles or semantic changed is
   * re-evaluated against every entity.
   */
  private async refreshPolicies(id: string, values: Record<string, unknown>, created: boolean): Promise<void> {
    const row = created ? values : ((await this.find(id)) as Record<string, unknown>);
    for (const index of this.roleIndexes.own) {
      const roles = (row[index.field] as string[] | null) ?? [];
      // Checked before the write began, but an entity may have been deleted since: its delete took our `@id` out of
      // the policies it saw, not out of this one. Under the index's lock, what exists now is what counts.
      const missing = await index.missingEntity(roles);
      if (missing !== undefined) {
        throw invalidField(index.field, `no ${index.target.label} found with id '${missing}'`, missing);
      }
      await index.refreshPolicy(id, roles, row.semantic);
    }
  }

  /** The same for entities whose attributes changed (or that are new): re-evaluated against every policy at once. */
  private async refreshEntities(entities: ReadonlyArray<Written>, created: boolean): Promise<void> {
    if (entities.length === 0) return;
    const field = this.def.roleAttributes!.field;
    const attributes = (values: Record<string, unknown>) => (values[field] as string[] | null | undefined) ?? [];
    const attributed = entities.map(({ id, values }) => ({ id, attributes: attributes(values) }));
    for (const index of this.roleIndexes.selectedBy) await index.refreshEntities(attributed, created);
  }

  /** Whether deleting rows of this resource touches the access index (its rows go by cascade). */
  private get inAccessIndex(): boolean {
    return this.roleIndexes.own.length > 0 || this.roleIndexes.selectedBy.length > 0;
  }

  /**
   * Deletes an entity and settles what refers to it, in the caller's transaction: a restricting reference is a
   * 409 naming the referencing field; reference lists and role sets lose the id; cascading references go too.
   */
  async delete(id: string): Promise<void> {
    await this.withAccessLock(this.inAccessIndex, async () => {
      for (const ref of this.referrers) await this.settleReferrer(ref, id);
      const result = await this.driver.run(`DELETE FROM ${this.table} WHERE "id" = ?`, [id]);
      if (result.changes === 0) throw notFound(this.def.name, id);
    });
    this.onWrite({ resource: this.def.name, op: 'delete' });
  }

  /** Deletes the rows matching `where` (their dependants go by cascade); returns how many. */
  async deleteWhere(where: Where): Promise<number> {
    const cond = this.whereClause(where);
    const deleted = await this.withAccessLock(this.inAccessIndex, async () => {
      return (await this.driver.run(`DELETE FROM ${this.table} AS e WHERE ${cond.sql}`, cond.params)).changes;
    });
    if (deleted > 0) this.onWrite({ resource: this.def.name, op: 'delete' });
    return deleted;
  }

  private async settleReferrer(ref: Referrer, id: string): Promise<void> {
    const holderTable = quote(ref.def.table);
    if (ref.kind === 'ref') {
      if (ref.onDelete !== 'restrict') return; // the foreign key cascades or clears
      const holders = await this.driver.all<{ id: string }>(
        `SELECT "id" FROM ${holderTable} WHERE ${quote(ref.field)} = ? ORDER BY "id" LIMIT ${HOLDERS_NAMED + 1}`,
        [id],
      );
      if (holders.length > 0)
        throw await this.referenced(
          id,
          ref,
          holders.map((h) => h.id),
        );
      return;
    }
    const side = quote(setTableName(ref.def, ref.field));
    const value = ref.kind === 'roles' ? `@${id}` : id;
    const owners = await this.driver.all<{ ownerId: string }>(`SELECT "ownerId" FROM ${side} WHERE "value" = ?`, [
      value,
    ]);
    if (owners.length === 0) return;
    if (ref.kind === 'refList' && ref.onDelete === 'restrict') {
      throw await this.referenced(
        id,
        ref,
        owners.map((o) => o.ownerId),
      );
    }
    // The set's JSON copy in each holder row is rewritten without the id, and its side rows removed.
    for (const { ownerId } of owners) {
      const row = await this.driver.get<Record<string, string>>(
        `SELECT ${quote(ref.field)} AS v FROM ${holderTable} WHERE "id" = ?`,
        [ownerId],
      );
      const stored = decodeJson(row?.v ?? '[]', { entity: ref.def.label, id: ownerId, field: ref.field }) as string[];
      const values = stored.filter((v) => v !== value);
      await this.driver.run(`UPDATE ${holderTable} SET ${quote(ref.field)} = ? WHERE "id" = ?`, [
        JSON.stringify(values),
        ownerId,
      ]);
    }
    await this.driver.run(`DELETE FROM ${side} WHERE "value" = ?`, [value]);
  }

  /**
   * The 409 of a restricted delete, naming the entity and what refers to it by name where they have one (a person
   * reads `config 'web'`, not an id): up to HOLDERS_NAMED of them, then "and others".
   */
  private async referenced(id: string, ref: Referrer, holderIds: readonly string[]): Promise<ApiError> {
    const [target] = await this.displayNames(this.def, [id]);
    const named = await this.displayNames(ref.def, holderIds.slice(0, HOLDERS_NAMED));
    const one = holderIds.length === 1;
    const kind = one ? ref.def.label : ref.def.plural.replace(/-/g, ' ');
    const holders = `${kind} ${named.join(', ')}${holderIds.length > HOLDERS_NAMED ? ' and others' : ''}`;
    const remove = one ? 'that reference' : 'those references';
    return new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY', {
      message:
        `the ${this.def.label} ${target} is referenced by ` + `${holders} (field ${ref.field}); remove ${remove} first`,
      cause: { field: ref.field, reason: `referenced by ${holders}`, value: id },
    });
  }

  /** `'web'` for an entity with a name, `'<id>'` for one without (or gone meanwhile); one read for all of them. */
  private async displayNames(def: ResourceDef, ids: readonly string[]): Promise<string[]> {
    const byId = new Map<string, string>();
    if ('name' in def.fields && ids.length > 0) {
      const sql = `SELECT "id", "name" FROM ${quote(def.table)} WHERE "id" IN (${ids.map(() => '?').join(', ')})`;
      for (const row of await this.driver.all<{ id: string; name: string }>(sql, ids)) byId.set(row.id, row.name);
    }
    return ids.map((id) => `'${byId.get(id) ?? id}'`);
  }

  /** Distinct values of a set field in use (`/identity-role-attributes`), filtered and paged like any list. */
  async setValues(field: string, params: ListParams): Promise<Page & { values: string[] }> {
    const side = quote(setTableName(this.def, field));
    const schema: FilterSchema = {
      idSql: 'v."value"',
      symbols: { id: { kind: 'scalar', type: 'string', sql: 'v."value"', sortable: true } },
    };
    const compiled = compileQuery(parseQuery(params.filter ?? ''), schema, this.dialect);
    const { limit, offset } = pageBounds(compiled, params);
    const from = `(SELECT DISTINCT "value" FROM ${side}) v`;
    const total = (await this.driver.get<{ n: number }>(
      `SELECT count(*) AS n FROM ${from} WHERE ${compiled.where}`,
      compiled.params,
    ))!.n;
    const values = await this.driver.all<{ value: string }>(
      `SELECT v."value" AS value FROM ${from} WHERE ${compiled.where} ORDER BY ${compiled.orderBy} LIMIT ? OFFSET ?`,
      [...compiled.params, limit ?? MAX_ALL_ROWS, offset],
    );
    return { values: values.map((v) => v.value), totalCount: total, limit: reportedLimit(limit, total), offset };
  }

  /**
   * Runs a write, turning a unique-index violation into the client error OpenZiti gives (400 COULD_NOT_VALIDATE
   * naming the field and value). The index decides, not a read beforehand, so concurrent writers cannot both win.
   */
  private async unique<T>(values: Record<string, unknown> | undefined, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      const violation = this.dialect.violation(err);
      if (violation?.kind !== 'unique') throw err;
      const fields = violation.columns ??
        (violation.constraint ? this.uniqueIndexes[violation.constraint] : undefined) ?? ['id'];
      const field = fields[fields.length - 1];
      const index = `unique index on ${this.def.plural} store`;
      if (!values) throw invalidField(field, `a duplicate value in ${index}`, undefined);
      const value = values[field];
      throw invalidField(field, `duplicate value '${renderValue(value)}' in ${index}`, value);
    }
  }

  private encode(name: string, value: unknown): unknown {
    const field: FieldDef = this.def.fields[name];
    return encodeValue(field.type, value === null && field.default !== undefined ? field.default : value);
  }

  /** The side rows of each set field written: replaced on update, one statement for a set's values in all rows. */
  private async writeSets(written: ReadonlyArray<Written>, fresh = false): Promise<void> {
    for (const field of this.setFields) {
      const owners = written.filter(({ values }) => values[field] !== undefined);
      if (owners.length === 0) continue;
      const side = setTableName(this.def, field);
      if (!fresh) {
        const ids = this.dialect.inList(
          raw('"ownerId"'),
          owners.map((o) => o.id),
        );
        await this.driver.run(`DELETE FROM ${quote(side)} WHERE ${ids.sql}`, ids.params);
      }
      const set = (values: Record<string, unknown>) => [...new Set((values[field] as string[] | null) ?? [])];
      const rows = owners.flatMap(({ id, values }) => set(values).map((value) => [id, value]));
      await insertRows(this.driver, side, SIDE_COLUMNS, rows);
    }
  }

  private decode(raw: Record<string, unknown>, include?: LookupOptions['include']): Row {
    const row = this.decodeRow(raw) as Row;
    if (include) {
      const at = (field: string) => ({ entity: this.def.label, id: row.id, field });
      const included: Record<string, Record<string, unknown>> = {};
      for (const [field, columns] of Object.entries(include)) {
        const target = this.resolve((this.def.fields[field].type as { resource: string }).resource);
        const read = (c: string) =>
          decodeValue(target.fields[c].type, raw[`include:${field}:${c}`], at(`${field}.${c}`));
        included[field] = Object.fromEntries(columns.map((c) => [c, read(c)]));
      }
      row.included = included;
    }
    return row;
  }
}
