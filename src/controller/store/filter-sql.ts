/**
 * Compiles a parsed ZitiQL query (src/protocol/zitiql) into a WHERE / ORDER BY pair, one SQL for every
 * dialect but for the few functions the dialect supplies (substring tests, reading tags).
 *
 * Safety: literal values only ever reach SQL as bound `?` parameters, and field names are only used to
 * look up schema entries; the SQL text is built from the schema's own `sql`/table/column strings. The one
 * exception is the key of a `sort by tags.<key>`, see sortExpression().
 *
 * allOf over an empty set is true (no element violates the condition), as in the Go controller's
 * AllOfSetExprNode; combine with `not isEmpty(set)` to require elements.
 *
 * NULL semantics: SQL's three-valued logic would make `not (externalId = "x")` drop rows whose
 * externalId is NULL. Every `not` therefore compiles to `NOT coalesce(inner, FALSE)`, i.e. "unknown" counts as
 * false before negating, and `!=` compiles to `IS DISTINCT FROM`. The result is two-valued logic in which a NULL field
 * fails every positive test (=, <, contains, in, between) and passes its negation (!=, not in, ...).
 * Positive comparisons stay as plain `col = ?` so the database can use indexes.
 */
import type {
  BetweenExpr,
  BoolExpr,
  CompareExpr,
  ContainsExpr,
  InExpr,
  Literal,
  Operand,
  Query,
} from '../../protocol/zitiql/ast.js';
import type { Dialect, TagView } from './dialects/dialect.js';
import { sqliteDialect } from './dialects/sqlite.js';
import { type Fragment, join, param, raw, sql } from './fragment.js';

export type SymbolType = 'string' | 'number' | 'boolean' | 'datetime';

export interface ScalarSymbol {
  kind: 'scalar';
  type: SymbolType;
  /** Column expression, e.g. "e.name". Booleans are stored as 0/1, datetimes as ISO-8601 UTC with ms. */
  sql: string;
  /** Defaults to true. */
  sortable?: boolean;
  /** A number held in a 64-bit integer column: literals compared with it must be integers in its range. */
  integer?: boolean;
  /** The name of the column's substring index (schema-model.ts), for `contains`. */
  substringIndex?: string;
}

/** A multi-valued field kept in a side table with one row per (owner, value). */
export interface SetSymbol {
  kind: 'set';
  type: SymbolType;
  table: string;
  /** Bare column names of `table` (they are qualified with an alias in the generated SQL). */
  ownerColumn: string;
  valueColumn: string;
  /** The owner id the side-table rows are matched against; the schema's id when absent (a linked entity's set). */
  ownerSql?: string;
  /** The name of the set's value counts (schema-model.ts), where the dialect keeps them. */
  valueCounts?: string;
}

/**
 * A reference to one entity of another resource: `<link>.<symbol>` reads that entity's symbol (`type.name` of a
 * config, `identity.name` of an enrollment), as OpenZiti's composite symbols over a foreign key do.
 */
export interface LinkedSchema {
  /** The referencing column, e.g. `e."configTypeId"`. */
  fkSql: string;
  /** The linked table and the alias its schema's SQL uses, e.g. `"config_types" e_r`. */
  from: string;
  /** Built when a name goes through the link, so that references that form a cycle are only followed on demand. */
  schema(): FilterSchema;
}

export interface FilterSchema {
  /** Entity id expression, e.g. "e.id"; also the implicit `id` symbol and the final sort tie-breaker. */
  idSql: string;
  symbols: Record<string, ScalarSymbol | SetSymbol>;
  /** JSON text column holding the tags object, e.g. "e.tags"; enables `tags.<key>`. */
  tagsSql?: string;
  /** References to other entities, by the prefix a composite symbol starts with. */
  links?: Record<string, LinkedSchema>;
}

export interface CompiledQuery {
  /** Always a valid condition ("1" when there is no filter). */
  where: string;
  /** Bound parameters of `where`, in order. `orderBy` has none. */
  params: unknown[];
  orderBy: string;
  skip?: number;
  limit?: number | 'none';
  /**
   * The total as a statement of its own, when the filter is one condition on the elements of a set
   * (`anyOf(roleAttributes) = "x"`): the side table's rows are counted alone, through its (value, owner) index,
   * instead of testing every entity. Each side row belongs to an entity (its foreign key), so the counts agree.
   * Absent otherwise: the total is the count of the rows `where` keeps.
   */
  count?: { sql: string; params: unknown[] };
  /**
   * When the filter requires a `contains` that a substring index serves (it, or one operand of a top-level `and`):
   * the ids of the entities the index offers, read up to `most` + 1 (SUBSTRING_CANDIDATES). At most `most` of them,
   * and the list reads those entities alone, `where` still testing each; more, and it reads every row, as without
   * the index, since a common needle's long list costs more than the scan.
   */
  candidates?: { sql: string; params: unknown[]; most: number };
}

/**
 * The most candidates a substring index may offer for the list to read them alone: a few hundred lookups by id cost
 * less than reading 100,000 names, while the index's answer for a common needle (every row) costs more.
 */
export const SUBSTRING_CANDIDATES = 500;

/** A query that is syntactically valid but does not fit the schema (unknown field, wrong types, ...). */
export class FilterError extends Error {
  override name = 'FilterError';
}

/** The condition of a query without a filter. */
export const NO_FILTER = '1 = 1';

export function compileQuery(q: Query, schema: FilterSchema, dialect: Dialect = sqliteDialect): CompiledQuery {
  const compiler = new Compiler(schema, dialect);
  const where = q.filter ? compiler.bool(q.filter) : raw(NO_FILTER);
  const compiled: CompiledQuery = {
    where: where.sql,
    params: [...where.params],
    orderBy: compileOrderBy(q, schema, dialect),
  };
  const count = q.filter && compiler.setCount(q.filter);
  if (count) compiled.count = { sql: count.sql, params: [...count.params] };
  const candidates = q.filter && compiler.substringCandidates(q.filter);
  if (candidates) {
    compiled.candidates = { sql: candidates.sql, params: [...candidates.params], most: SUBSTRING_CANDIDATES };
  }
  if (q.skip !== undefined) compiled.skip = q.skip;
  if (q.limit !== undefined) compiled.limit = q.limit;
  return compiled;
}

/** The range of the numeric fields (64-bit integers): [-2^63, 2^63). */
const INT64_MIN = -(2 ** 63);
const INT64_LIMIT = 2 ** 63;

/** Negation that treats NULL ("unknown") as false first; see the file comment. */
const not = (f: Fragment): Fragment => sql`NOT coalesce(${f}, FALSE)`;

/** Alias of a set's side table inside its subquery; distinct from any outer alias the schema may use. */
const SET_ALIAS = 'zq_set';

/**
 * The type an operation needs to read its operand as. Only tags (untyped JSON) depend on it: a typed view
 * reads values of another JSON type as NULL; 'substring' accepts text and numbers; 'any' accepts all.
 */
type ValueView = TagView;

/**
 * What an operation's left-hand side resolved to: its type, how to read its value, and how to wrap a
 * per-value condition (identity for plain fields, EXISTS/NOT EXISTS for set functions).
 */
interface Target {
  /** 'any' for tags, whose values are untyped JSON. */
  type: SymbolType | 'any';
  value(view: ValueView): Fragment;
  wrap(condition: Fragment): Fragment;
  /** Whether `= null` applies (plain fields only, as in the Go controller). */
  nullable: boolean;
  /** Source form for error messages, e.g. "anyOf(roleAttributes)". */
  text: string;
  /** Numbers are 64-bit integers (see ScalarSymbol.integer). */
  integer?: boolean;
}

type Resolved =
  | { kind: 'scalar'; symbol: ScalarSymbol }
  | { kind: 'set'; symbol: SetSymbol }
  | { kind: 'tag'; key: string; tagsSql: string };

const TAG_PREFIX = 'tags.';

function resolve(name: string, schema: FilterSchema): Resolved {
  const resolved = lookup(name, schema);
  if (!resolved) throw new FilterError(`unknown symbol '${name}'`);
  return resolved;
}

function lookup(name: string, schema: FilterSchema): Resolved | undefined {
  // hasOwn: names like "constructor" must not find Object.prototype members.
  if (Object.hasOwn(schema.symbols, name)) {
    const symbol = schema.symbols[name];
    return symbol.kind === 'set' ? { kind: 'set', symbol } : { kind: 'scalar', symbol };
  }
  if (name === 'id') return { kind: 'scalar', symbol: { kind: 'scalar', type: 'string', sql: schema.idSql } };
  if (schema.tagsSql !== undefined && name.startsWith(TAG_PREFIX) && name.length > TAG_PREFIX.length) {
    return { kind: 'tag', key: name.slice(TAG_PREFIX.length), tagsSql: schema.tagsSql };
  }
  const dot = name.indexOf('.');
  if (dot > 0 && schema.links && Object.hasOwn(schema.links, name.slice(0, dot))) {
    const link = schema.links[name.slice(0, dot)];
    const linked = link.schema();
    const rest = lookup(name.slice(dot + 1), linked);
    return rest && throughLink(rest, link, linked);
  }
  return undefined;
}

/** A symbol of the linked entity, read from the referencing row: each expression becomes a scalar subquery. */
function throughLink(resolved: Resolved, link: LinkedSchema, linked: FilterSchema): Resolved {
  const via = (expression: string) => `(SELECT ${expression} FROM ${link.from} WHERE ${linked.idSql} = ${link.fkSql})`;
  switch (resolved.kind) {
    case 'scalar': {
      // The linked table's substring index holds its ids, not ours.
      const { substringIndex: _, ...symbol } = resolved.symbol;
      return { kind: 'scalar', symbol: { ...symbol, sql: via(symbol.sql) } };
    }
    case 'set':
      return { kind: 'set', symbol: { ...resolved.symbol, ownerSql: via(resolved.symbol.ownerSql ?? linked.idSql) } };
    case 'tag':
      return { ...resolved, tagsSql: via(resolved.tagsSql) };
  }
}

class Compiler {
  /** Set while setCount compiles a condition on a set's elements alone, outside the EXISTS tying them to an entity. */
  private elementsOnly = false;

  constructor(
    private readonly schema: FilterSchema,
    private readonly dialect: Dialect,
  ) {}

  bool(expr: BoolExpr): Fragment {
    switch (expr.kind) {
      case 'and':
      case 'or':
        return sql`(${join(
          expr.operands.map((e) => this.bool(e)),
          expr.kind === 'and' ? ' AND ' : ' OR ',
        )})`;
      case 'not':
        return not(this.bool(expr.operand));
      case 'const':
        // Written as a comparison: a bare bound value is not a condition in every dialect.
        return raw(expr.value ? '(1 = 1)' : '(1 = 0)');
      case 'boolSymbol':
        return this.boolSymbol(expr.name);
      case 'isEmpty':
        return sql`NOT ${this.setExists(this.setSymbol(expr.set, 'isEmpty'))}`;
      case 'compare':
        return this.compare(expr);
      case 'contains':
        return this.contains(expr);
      case 'in':
        return this.in(expr);
      case 'between':
        return this.between(expr);
    }
  }

  /** CompiledQuery.count: a filter that is one `anyOf(set) ...` condition, counted over the set's own rows. */
  setCount(expr: BoolExpr): Fragment | undefined {
    if (!('left' in expr) || expr.left.kind !== 'anyOf') return undefined;
    const symbol = this.setSymbol(expr.left.set, 'anyOf');
    if (symbol.ownerSql !== undefined) return undefined; // a linked entity's set: its rows are not ours to count
    this.elementsOnly = true;
    let condition: Fragment;
    try {
      condition = this.bool(expr);
    } finally {
      this.elementsOnly = false;
    }
    const from = raw(`${symbol.table} AS ${SET_ALIAS}`);
    // An owner holds a value once (the side table's key), so its rows equal to one value count each owner once:
    // the value's count, where the set's are kept.
    if (expr.kind === 'compare' && expr.op === '=') {
      const { right } = expr;
      const counted =
        symbol.valueCounts && right.kind === 'string'
          ? this.dialect.valueCount?.(symbol.valueCounts, param(right.value))
          : undefined;
      return counted ?? sql`SELECT count(*) AS n FROM ${from} WHERE ${condition}`;
    }
    const owner = raw(`${SET_ALIAS}.${symbol.ownerColumn}`);
    return sql`SELECT count(*) AS n FROM (SELECT DISTINCT ${owner} FROM ${from} WHERE ${condition}) owners`;
  }

  /** CompiledQuery.candidates: the first `contains` the filter requires whose field has a substring index. */
  substringCandidates(expr: BoolExpr): Fragment | undefined {
    if (expr.kind === 'and') {
      for (const operand of expr.operands) {
        const found = this.substringCandidates(operand);
        if (found) return found;
      }
      return undefined;
    }
    // A number's decimal form is the database's to write (a needle of 1e21 is not the text "1e+21").
    if (expr.kind !== 'contains' || expr.negated || expr.left.kind !== 'symbol' || expr.right.kind !== 'string') {
      return undefined;
    }
    const resolved = lookup(expr.left.name, this.schema);
    if (resolved?.kind !== 'scalar' || !resolved.symbol.substringIndex) return undefined;
    const index = resolved.symbol.substringIndex;
    return this.dialect.substringCandidates?.(index, expr.right.value, SUBSTRING_CANDIDATES + 1);
  }

  /** A bare field means `field = true`. */
  private boolSymbol(name: string): Fragment {
    const target = this.target({ kind: 'symbol', name });
    if (target.type !== 'boolean' && target.type !== 'any') {
      throw new FilterError(`symbol '${name}' is of type ${target.type} and cannot be used as a boolean condition`);
    }
    return sql`${target.value('boolean')} = ${param(true)}`;
  }

  private compare(expr: CompareExpr): Fragment {
    const target = this.target(expr.left);
    const { op, right } = expr;
    const fail = (): never => this.unsupported(`${target.text} ${op} ${formatLiteral(right)}`, target, right.kind);
    if (right.kind === 'null') {
      if (!target.nullable || (op !== '=' && op !== '!=')) fail();
      return sql`${target.value('any')} ${raw(op === '=' ? 'IS NULL' : 'IS NOT NULL')}`;
    }
    if (!accepts(target, right.kind) || (right.kind === 'boolean' && op !== '=' && op !== '!=')) fail();
    const value = target.value(right.kind);
    // `!=` as IS DISTINCT FROM so that a NULL field counts as "not equal" (the negation of `=`).
    const operator = raw(op === '!=' ? 'IS DISTINCT FROM' : op);
    return target.wrap(sql`${value} ${operator} ${this.literal(target, right)}`);
  }

  private contains(expr: ContainsExpr): Fragment {
    const target = this.target(expr.left);
    const name = `${expr.negated ? 'not ' : ''}${expr.ignoreCase ? 'icontains' : 'contains'}`;
    // Substring tests apply to text and to the decimal form of numbers, as in the Go controller.
    if (target.type !== 'string' && target.type !== 'number' && target.type !== 'any') {
      this.unsupported(`${target.text} ${name} ${formatLiteral(expr.right)}`, target, expr.right.kind);
    }
    const value = target.value('substring');
    const found = this.dialect.containsText(value, String(expr.right.value), expr.ignoreCase);
    return target.wrap(expr.negated ? not(found) : found);
  }

  private in(expr: InExpr): Fragment {
    const target = this.target(expr.left);
    const kind = expr.values[0].kind;
    if (!accepts(target, kind)) {
      const list = `[${expr.values.map(formatLiteral).join(', ')}]`;
      this.unsupported(`${target.text} ${expr.negated ? 'not in' : 'in'} ${list}`, target, kind);
    }
    const list = join(
      expr.values.map((v) => this.literal(target, v)),
      ', ',
    );
    const found = sql`${target.value(kind)} IN (${list})`;
    return target.wrap(expr.negated ? not(found) : found);
  }

  private between(expr: BetweenExpr): Fragment {
    const target = this.target(expr.left);
    const kind = expr.lower.kind;
    if (!accepts(target, kind)) {
      const bounds = `${formatLiteral(expr.lower)} and ${formatLiteral(expr.upper)}`;
      this.unsupported(`${target.text} ${expr.negated ? 'not between' : 'between'} ${bounds}`, target, kind);
    }
    const value = target.value(kind);
    // Half-open, as in the Go controller: lower <= x < upper.
    const lower = this.literal(target, expr.lower);
    const found = sql`(${value} >= ${lower} AND ${value} < ${this.literal(target, expr.upper)})`;
    return target.wrap(expr.negated ? not(found) : found);
  }

  /**
   * A literal as a bound parameter, checked against the field first: numeric fields are 64-bit integer columns, so
   * a fraction or a number beyond their range is the client's mistake, not the database's (which would refuse it
   * with an error of its own); and no field holds a number too large to represent (1e999 reads as Infinity).
   */
  private literal(target: Target, literal: Exclude<Literal, { kind: 'null' }>): Fragment {
    if (literal.kind === 'number') {
      const { value } = literal;
      if (!Number.isFinite(value)) {
        throw new FilterError(`${target.text}: the number ${literal.value} is too large to represent`);
      }
      if (target.integer && !(Number.isInteger(value) && value >= INT64_MIN && value < INT64_LIMIT)) {
        throw new FilterError(`${target.text} is a 64-bit integer: ${value} is not one`);
      }
    }
    return param(literal.value);
  }

  private target(operand: Operand): Target {
    const identity = (condition: Fragment): Fragment => condition;
    if (operand.kind === 'count') {
      const symbol = this.setSymbol(operand.set, 'count');
      const count = sql`(SELECT count(*) FROM ${this.setFrom(symbol)})`;
      const text = `count(${operand.set})`;
      return { type: 'number', value: () => count, wrap: identity, nullable: false, text, integer: true };
    }
    if (operand.kind === 'anyOf' || operand.kind === 'allOf') {
      const symbol = this.setSymbol(operand.set, operand.kind);
      const element = raw(`${SET_ALIAS}.${symbol.valueColumn}`);
      const all = operand.kind === 'allOf';
      return {
        type: symbol.type,
        value: () => element,
        // allOf = no element violates the condition, so it is true for an empty set (as in the Go controller).
        wrap: (condition) =>
          all
            ? sql`NOT ${this.setExists(symbol, not(condition))}`
            : this.elementsOnly
              ? condition
              : this.setExists(symbol, condition),
        nullable: false,
        text: `${operand.kind}(${operand.set})`,
      };
    }
    const resolved = resolve(operand.name, this.schema);
    if (resolved.kind === 'set') {
      throw new FilterError(`symbol '${operand.name}' is a set symbol but is used in non-set function context`);
    }
    if (resolved.kind === 'tag') {
      const value = (view: ValueView): Fragment => this.dialect.tagValue(resolved.tagsSql, param(resolved.key), view);
      return { type: 'any', value, wrap: identity, nullable: true, text: operand.name };
    }
    const { sql: column, type, integer } = resolved.symbol;
    return { type, value: () => raw(column), wrap: identity, nullable: true, text: operand.name, integer };
  }

  private setSymbol(name: string, fn: string): SetSymbol {
    const resolved = resolve(name, this.schema);
    if (resolved.kind !== 'set') {
      throw new FilterError(`symbol '${name}' is not a set symbol and cannot be used with ${fn}()`);
    }
    return resolved.symbol;
  }

  /** `<table> AS zq_set WHERE zq_set.<owner> = <id>`: the side-table rows of the current entity. */
  private setFrom(symbol: SetSymbol): Fragment {
    const { table, ownerColumn, ownerSql = this.schema.idSql } = symbol;
    return raw(`${table} AS ${SET_ALIAS} WHERE ${SET_ALIAS}.${ownerColumn} = ${ownerSql}`);
  }

  /** Whether the entity has a set element (satisfying the condition, when given). */
  private setExists(symbol: SetSymbol, condition?: Fragment): Fragment {
    const from = this.setFrom(symbol);
    return condition ? sql`EXISTS (SELECT 1 FROM ${from} AND ${condition})` : sql`EXISTS (SELECT 1 FROM ${from})`;
  }

  private unsupported(operation: string, target: Target, literalKind: Literal['kind']): never {
    throw new FilterError(`operation ${operation} is not supported with operands types ${target.type}, ${literalKind}`);
  }
}

/** Whether a literal of this kind can be compared with the target (tags take any type). */
function accepts(target: Target, kind: Literal['kind']): kind is SymbolType {
  return kind !== 'null' && (target.type === 'any' || target.type === kind);
}

/** Only used to echo the user's operation back in errors. */
function formatLiteral(literal: Literal): string {
  switch (literal.kind) {
    case 'string':
      return JSON.stringify(literal.value);
    case 'datetime':
      return `datetime(${literal.value})`;
    case 'null':
      return 'null';
    default:
      return String(literal.value);
  }
}

/**
 * ORDER BY of the requested sort fields, always ending with the id so that pages are stable.
 * Sort fields never add parameters, so `where`/`params` can be reused for count queries.
 */
function compileOrderBy(q: Query, schema: FilterSchema, dialect: Dialect): string {
  const terms = q.sort.map(({ field, direction }) => ({
    sql: sortExpression(field, schema, dialect),
    direction: direction === 'desc' ? 'DESC' : 'ASC',
  }));
  if (!terms.some((t) => t.sql === schema.idSql)) terms.push({ sql: schema.idSql, direction: 'ASC' });
  return terms.map((t) => `${t.sql} ${t.direction}`).join(', ');
}

/** Tag keys that can be written into a JSON path literal: exactly the ZitiQL identifier characters. */
const SAFE_TAG_KEY = /^[A-Za-z][A-Za-z_-]*(?:\.[A-Za-z][A-Za-z_-]*)*$/;

function sortExpression(field: string, schema: FilterSchema, dialect: Dialect): string {
  const resolved = resolve(field, schema);
  if (resolved.kind === 'tag') {
    // The one place a name reaches SQL text: a bound parameter here would make `params` depend on
    // ORDER BY. The key is re-validated to identifier characters, which cannot break out of the literal.
    if (!SAFE_TAG_KEY.test(resolved.key)) throw new FilterError(`sort field '${field}' is not sortable`);
    return dialect.tagSort(resolved.tagsSql, resolved.key);
  }
  if (resolved.kind === 'set' || resolved.symbol.sortable === false) {
    throw new FilterError(`sort field '${field}' is not sortable`);
  }
  return resolved.symbol.sql;
}
