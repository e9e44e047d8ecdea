/**
 * AST of a parsed ZitiQL query (wire-protocol section 3). The parser guarantees the shapes the grammar
 * allows (e.g. homogeneous `in` lists, number-or-datetime `between` bounds), so consumers never need to
 * re-check syntax; semantic checks (symbol types) belong to whoever compiles the tree.
 */

export interface StringLiteral {
  kind: 'string';
  value: string;
}

export interface NumberLiteral {
  kind: 'number';
  value: number;
}

export interface DatetimeLiteral {
  kind: 'datetime';
  /** Normalised to ISO-8601 UTC with milliseconds (`2026-01-02T03:04:05.000Z`), so it orders as text. */
  value: string;
}

export interface BooleanLiteral {
  kind: 'boolean';
  value: boolean;
}

export interface NullLiteral {
  kind: 'null';
}

export type Literal = StringLiteral | NumberLiteral | DatetimeLiteral | BooleanLiteral | NullLiteral;

export type ComparisonOperator = '=' | '!=' | '<' | '<=' | '>' | '>=';

/** Left-hand side of an operation: a field, or a set function applied to a set field. */
export type Operand =
  | { kind: 'symbol'; name: string }
  /** `anyOf(set)` / `allOf(set)`: the operation applies to each element of the set. */
  | { kind: 'anyOf'; set: string }
  | { kind: 'allOf'; set: string }
  /** `count(set)`: the number of elements, compared as a number. */
  | { kind: 'count'; set: string };

export interface AndExpr {
  kind: 'and';
  operands: BoolExpr[];
}

export interface OrExpr {
  kind: 'or';
  operands: BoolExpr[];
}

export interface NotExpr {
  kind: 'not';
  operand: BoolExpr;
}

/** The literal `true` or `false` used as a whole condition. */
export interface ConstExpr {
  kind: 'const';
  value: boolean;
}

/** A bare field name used as a condition; means `name = true`. */
export interface BoolSymbolExpr {
  kind: 'boolSymbol';
  name: string;
}

export interface IsEmptyExpr {
  kind: 'isEmpty';
  set: string;
}

export interface CompareExpr {
  kind: 'compare';
  left: Operand;
  op: ComparisonOperator;
  right: Literal;
}

export interface ContainsExpr {
  kind: 'contains';
  left: Operand;
  negated: boolean;
  /** `icontains`: compare upper-cased. */
  ignoreCase: boolean;
  right: StringLiteral | NumberLiteral;
}

export interface InExpr {
  kind: 'in';
  left: Operand;
  negated: boolean;
  /** Never empty; all of one kind. */
  values: StringLiteral[] | NumberLiteral[] | DatetimeLiteral[];
}

/** Half-open range: `lower <= x < upper`. */
export type BetweenExpr = { kind: 'between'; left: Operand; negated: boolean } & (
  | { lower: NumberLiteral; upper: NumberLiteral }
  | { lower: DatetimeLiteral; upper: DatetimeLiteral }
);

export type BoolExpr =
  | AndExpr
  | OrExpr
  | NotExpr
  | ConstExpr
  | BoolSymbolExpr
  | IsEmptyExpr
  | CompareExpr
  | ContainsExpr
  | InExpr
  | BetweenExpr;

export type SortDirection = 'asc' | 'desc';

export interface SortField {
  field: string;
  direction: SortDirection;
}

export interface Query {
  /** Absent for an empty filter (which matches everything). */
  filter?: BoolExpr;
  /** In priority order; empty when the query has no `sort by`. */
  sort: SortField[];
  skip?: number;
  /** `'none'` for `limit none` (no limit). Taken as written: clamping is the caller's paging policy. */
  limit?: number | 'none';
}
