/**
 * Recursive-descent parser for ZitiQL (wire-protocol section 3):
 *
 *   query    := [or] [sort by field [asc|desc] (, field [asc|desc])*] [skip N] [limit N|none]
 *   or       := and (or and)*
 *   and      := unary (and unary)*
 *   unary    := not or | primary
 *   primary  := ( or ) | true | false | isEmpty(set) | operand [operation]
 *   operand  := field | anyOf(set) | allOf(set) | count(set)
 *
 * `and` binds tighter than `or`; `not` applies to everything to its right (`not a = 1 and b = 2` is
 * `not (a = 1 and b = 2)`), because that is how OpenZiti's grammar reads it (NotExpr is the last, lowest-precedence
 * alternative of boolExpr in ZitiQl.g4) and a filter must mean the same on both controllers. Keywords are
 * case-insensitive; a keyword can be used as a field name only when single-quoted.
 */
import type {
  BoolExpr,
  ComparisonOperator,
  DatetimeLiteral,
  Literal,
  NumberLiteral,
  Operand,
  Query,
  SortField,
  StringLiteral,
} from './ast.js';
import { tokenize, ZitiQlError } from './lexer.js';
import type { Token } from './lexer.js';

export { ZitiQlError } from './lexer.js';

export const MAX_SORT_FIELDS = 5;
/** Bounds recursion on `(` and `not`, so hostile input fails with a ZitiQlError, not a stack overflow. */
export const MAX_NESTING = 100;
/**
 * Bounds the conditions of one filter (each comparison, `contains`, `in`, `between`, `isEmpty`, `true`/`false` and
 * boolean field counts one), so a filter cannot compile to SQL deeper or wider than the database accepts.
 */
export const MAX_CONDITIONS = 256;
/** Bounds the values of one `in [...]` list (each becomes a bound SQL parameter). */
export const MAX_LIST_VALUES = 1000;

const KEYWORDS = new Set([
  'and',
  'or',
  'not',
  'true',
  'false',
  'null',
  'contains',
  'icontains',
  'in',
  'between',
  'sort',
  'by',
  'asc',
  'desc',
  'skip',
  'limit',
  'none',
  'from',
  'where',
  'allof',
  'anyof',
  'count',
  'isempty',
]);
const FOLLOWERS = {
  filter: ["'and'", "'or'", "'sort by'", "'skip'", "'limit'"],
  sort: ["','", "'skip'", "'limit'"],
  skip: ["'limit'"],
  limit: [],
};
const COMPARISONS = new Set<string>(['=', '!=', '<', '<=', '>', '>=']);
// A Map, not an object literal: a field named "constructor" must not find Object.prototype members.
const SET_FUNCTIONS = new Map<string, 'anyOf' | 'allOf' | 'count'>([
  ['anyof', 'anyOf'],
  ['allof', 'allOf'],
  ['count', 'count'],
]);

/** Parses a whole filter; empty or whitespace-only text yields a query without filter. */
export function parseQuery(text: string): Query {
  return new Parser(tokenize(text)).parseQuery();
}

class Parser {
  private index = 0;
  private depth = 0;
  private conditions = 0;

  constructor(private readonly tokens: Token[]) {}

  parseQuery(): Query {
    const query: Query = { sort: [] };
    // The clause parsed last decides what may still follow, for the "expected ..." message. A query
    // without filter starts with a suffix clause (or is empty), which overwrites this.
    let last: keyof typeof FOLLOWERS = 'filter';
    if (!this.atSuffix()) query.filter = this.parseOr();
    if (this.acceptKeyword('sort')) {
      this.expectKeyword('by', "'by' after 'sort'");
      query.sort = this.parseSortFields();
      last = 'sort';
    }
    if (this.acceptKeyword('skip')) {
      query.skip = this.expectInteger('skip');
      last = 'skip';
    }
    if (this.acceptKeyword('limit')) {
      query.limit = this.acceptKeyword('none') ? 'none' : this.expectInteger('limit');
      last = 'limit';
    }
    if (this.peek().kind !== 'eof') {
      const expected = [...FOLLOWERS[last], 'end of input'];
      this.fail(`expected ${joinOptions(expected)} but found ${describe(this.peek())}`);
    }
    return query;
  }

  private atSuffix(): boolean {
    return ['sort', 'skip', 'limit'].some((k) => this.isKeyword(this.peek(), k)) || this.peek().kind === 'eof';
  }

  private parseSortFields(): SortField[] {
    const fields: SortField[] = [];
    do {
      if (fields.length === MAX_SORT_FIELDS) {
        this.fail(`too many sort fields: at most ${MAX_SORT_FIELDS} are allowed`);
      }
      const field = this.expectIdentifier('a field name to sort by');
      let direction: SortField['direction'] = 'asc';
      if (this.acceptKeyword('desc')) direction = 'desc';
      else this.acceptKeyword('asc');
      fields.push({ field, direction });
    } while (this.acceptSymbol(','));
    return fields;
  }

  private parseOr(): BoolExpr {
    const operands = [this.parseAnd()];
    while (this.acceptKeyword('or')) operands.push(this.parseAnd());
    return operands.length === 1 ? operands[0] : { kind: 'or', operands };
  }

  private parseAnd(): BoolExpr {
    const operands = [this.parseUnary()];
    while (this.acceptKeyword('and')) operands.push(this.parseUnary());
    return operands.length === 1 ? operands[0] : { kind: 'and', operands };
  }

  private parseUnary(): BoolExpr {
    if (this.acceptKeyword('not')) return { kind: 'not', operand: this.nested(() => this.parseOr()) };
    return this.parsePrimary();
  }

  private parsePrimary(): BoolExpr {
    const token = this.peek();
    if (this.peek().kind !== 'symbol' || this.peek().text !== '(') this.countCondition(token);
    if (this.acceptSymbol('(')) {
      const expr = this.nested(() => this.parseOr());
      this.expectSymbol(')', "')' to close the parenthesis");
      return expr;
    }
    if (this.acceptKeyword('true')) return { kind: 'const', value: true };
    if (this.acceptKeyword('false')) return { kind: 'const', value: false };
    if (this.acceptKeyword('isEmpty')) return { kind: 'isEmpty', set: this.parseSetArgument('isEmpty') };

    const left = this.parseOperand();
    if (left === undefined) {
      this.fail(`expected a condition (such as name = "x") but found ${describe(token)}`);
    }
    if (this.atOperator()) return this.parseOperation(left);
    if (left.kind === 'symbol') return { kind: 'boolSymbol', name: left.name };
    const operators = '=, !=, <, <=, >, >=, contains, icontains, in, between';
    return this.fail(
      `expected an operator (${operators}) after ${left.kind}(${left.set}) but found ${describe(this.peek())}`,
    );
  }

  private countCondition(at: Token): void {
    if (++this.conditions > MAX_CONDITIONS) {
      this.fail(`too many conditions: a filter may have at most ${MAX_CONDITIONS}`, at);
    }
  }

  /** Runs `parse` one nesting level deeper, just after the `(` or `not` that opened the level. */
  private nested<T>(parse: () => T): T {
    if (++this.depth > MAX_NESTING) {
      this.fail(`expression nested too deeply (more than ${MAX_NESTING} levels)`, this.tokens[this.index - 1]);
    }
    const result = parse();
    this.depth--;
    return result;
  }

  private parseOperand(): Operand | undefined {
    const token = this.peek();
    const setFunction = token.kind === 'word' ? SET_FUNCTIONS.get(token.text.toLowerCase()) : undefined;
    if (setFunction) {
      this.index++;
      return { kind: setFunction, set: this.parseSetArgument(token.text) };
    }
    if (token.kind === 'quotedIdentifier' || (token.kind === 'word' && !this.isReserved(token))) {
      return { kind: 'symbol', name: this.expectIdentifier('a field name') };
    }
    return undefined;
  }

  /** `(field)` after a set function; subqueries (`from X where ...`) are recognised only to reject them. */
  private parseSetArgument(fn: string): string {
    this.expectSymbol('(', `'(' after ${fn}`);
    if (this.isKeyword(this.peek(), 'from')) {
      this.fail(`subqueries ("from ... where ...") are not supported`);
    }
    const set = this.expectIdentifier(`a set field name inside ${fn}()`);
    this.expectSymbol(')', `')' after ${fn}(${set}`);
    return set;
  }

  private atOperator(): boolean {
    const token = this.peek();
    if (token.kind === 'symbol') return COMPARISONS.has(token.text);
    return ['contains', 'icontains', 'in', 'between', 'not'].some((k) => this.isKeyword(token, k));
  }

  private parseOperation(left: Operand): BoolExpr {
    const token = this.next();
    if (token.kind === 'symbol') {
      const op = token.text as ComparisonOperator;
      const equality = op === '=' || op === '!=';
      const right = this.parseLiteral(
        equality ? ['string', 'number', 'datetime', 'boolean', 'null'] : ['string', 'number', 'datetime'],
        `'${op}'`,
      );
      return { kind: 'compare', left, op, right };
    }
    const negated = this.isKeyword(token, 'not');
    const operator = negated ? this.next() : token;
    const name = operator.kind === 'word' ? operator.text.toLowerCase() : '';
    const opText = negated ? `'not ${name}'` : `'${name}'`;
    switch (name) {
      case 'contains':
      case 'icontains': {
        const right = this.parseLiteral(['string', 'number'], opText) as StringLiteral | NumberLiteral;
        return { kind: 'contains', left, negated, ignoreCase: name === 'icontains', right };
      }
      case 'in':
        return { kind: 'in', left, negated, values: this.parseArray(opText) };
      case 'between': {
        const lower = this.parseLiteral(['number', 'datetime'], opText) as NumberLiteral | DatetimeLiteral;
        this.expectKeyword('and', `'and' between the bounds of ${opText}`);
        const upper = this.parseLiteral([lower.kind], `'and' in ${opText}`);
        // parseLiteral returned the same kind as `lower`, which TypeScript cannot correlate.
        return { kind: 'between', left, negated, lower, upper } as BoolExpr;
      }
      default:
        return this.fail(
          `expected 'contains', 'icontains', 'in' or 'between' after 'not' but found ${describe(operator)}`,
          operator,
        );
    }
  }

  private parseArray(opText: string): StringLiteral[] | NumberLiteral[] | DatetimeLiteral[] {
    this.expectSymbol('[', `'[' after ${opText}`);
    if (this.peek().kind === 'symbol' && this.peek().text === ']') {
      this.fail(`empty list after ${opText} is not allowed: give at least one value`);
    }
    const first = this.parseLiteral(['string', 'number', 'datetime'], `'['`);
    const values: Literal[] = [first];
    while (this.acceptSymbol(',')) {
      if (values.length === MAX_LIST_VALUES) {
        this.fail(`too many values in the list after ${opText}: at most ${MAX_LIST_VALUES} are allowed`);
      }
      values.push(this.parseLiteral([first.kind], `',' (all values of the list must be of one type)`));
    }
    this.expectSymbol(']', `',' or ']' in the list after ${opText}`);
    return values as StringLiteral[] | NumberLiteral[] | DatetimeLiteral[];
  }

  /** Reads one literal of an allowed kind; `after` names what precedes it for the error message. */
  private parseLiteral(allowed: Literal['kind'][], after: string): Literal {
    const token = this.peek();
    let literal: Literal | undefined;
    if (token.kind === 'string' || token.kind === 'number' || token.kind === 'datetime') {
      literal = { kind: token.kind, value: token.value } as Literal;
    } else if (this.isKeyword(token, 'true') || this.isKeyword(token, 'false')) {
      literal = { kind: 'boolean', value: token.text.toLowerCase() === 'true' };
    } else if (this.isKeyword(token, 'null')) {
      literal = { kind: 'null' };
    }
    if (literal === undefined || !allowed.includes(literal.kind)) {
      this.fail(`expected ${describeKinds(allowed)} after ${after} but found ${describe(token)}`);
    }
    this.index++;
    return literal;
  }

  private expectInteger(keyword: string): number {
    const token = this.peek();
    if (token.kind !== 'number' || !Number.isSafeInteger(token.value)) {
      const options = keyword === 'limit' ? "an integer or 'none'" : 'an integer';
      this.fail(`expected ${options} after '${keyword}' but found ${describe(token)}`);
    }
    this.index++;
    return token.value;
  }

  private expectIdentifier(what: string): string {
    const token = this.peek();
    if (token.kind === 'quotedIdentifier') {
      this.index++;
      return token.name;
    }
    if (token.kind === 'word' && !this.isReserved(token)) {
      this.index++;
      return token.text;
    }
    const hint = token.kind === 'word' ? ` (quote it as '${token.text}' to use a keyword as a field name)` : '';
    return this.fail(`expected ${what} but found ${describe(token)}${hint}`);
  }

  private expectKeyword(keyword: string, what: string): void {
    if (!this.acceptKeyword(keyword)) this.fail(`expected ${what} but found ${describe(this.peek())}`);
  }

  private expectSymbol(symbol: string, what: string): void {
    if (!this.acceptSymbol(symbol)) this.fail(`expected ${what} but found ${describe(this.peek())}`);
  }

  private acceptKeyword(keyword: string): boolean {
    if (!this.isKeyword(this.peek(), keyword)) return false;
    this.index++;
    return true;
  }

  private acceptSymbol(symbol: string): boolean {
    const token = this.peek();
    if (token.kind !== 'symbol' || token.text !== symbol) return false;
    this.index++;
    return true;
  }

  private isKeyword(token: Token, keyword: string): boolean {
    return token.kind === 'word' && token.text.toLowerCase() === keyword.toLowerCase();
  }

  private isReserved(token: Token): boolean {
    return KEYWORDS.has(token.text.toLowerCase());
  }

  private peek(): Token {
    return this.tokens[this.index];
  }

  private next(): Token {
    return this.tokens[this.index++];
  }

  /** Fails at the current token, unless told otherwise. */
  private fail(message: string, at: Token = this.peek()): never {
    const { line, column } = at;
    throw new ZitiQlError(`${message} at line ${line}, column ${column}`, line, column);
  }
}

function describe(token: Token): string {
  if (token.kind === 'eof') return 'end of input';
  // Strings and quoted identifiers already carry their quotes.
  return token.kind === 'string' || token.kind === 'quotedIdentifier' ? token.text : `"${token.text}"`;
}

function describeKinds(kinds: Literal['kind'][]): string {
  return joinOptions(kinds.map((k) => (k === 'boolean' ? 'true/false' : k === 'null' ? 'null' : `a ${k}`)));
}

function joinOptions(options: string[]): string {
  return options.length === 1 ? options[0] : `${options.slice(0, -1).join(', ')} or ${options[options.length - 1]}`;
}
