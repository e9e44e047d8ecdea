import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseQuery, ZitiQlError } from './index.js';
import type { BoolExpr, ComparisonOperator, Literal, Query } from './index.js';

const filter = (text: string): BoolExpr | undefined => parseQuery(text).filter;
const sym = (name: string) => ({ kind: 'symbol', name }) as const;
const str = (value: string) => ({ kind: 'string', value }) as const;
const num = (value: number) => ({ kind: 'number', value }) as const;
const dt = (value: string) => ({ kind: 'datetime', value }) as const;
const bool = (value: boolean) => ({ kind: 'boolean', value }) as const;
const nil = { kind: 'null' } as const;
const cmp = (name: string, op: ComparisonOperator, right: Literal): BoolExpr => ({
  kind: 'compare',
  left: sym(name),
  op,
  right,
});
const eq = (name: string, value: number): BoolExpr => cmp(name, '=', num(value));

/** Asserts a ZitiQlError whose message contains `fragment` and that points at line/column. */
function assertSyntaxError(text: string, fragment: string, line: number, column: number): void {
  assert.throws(
    () => parseQuery(text),
    (err: unknown) => {
      assert.ok(err instanceof ZitiQlError, `expected ZitiQlError, got ${String(err)}`);
      assert.ok(err.message.includes(fragment), `message "${err.message}" lacks "${fragment}"`);
      assert.deepEqual({ line: err.line, column: err.column }, { line, column }, err.message);
      return true;
    },
  );
}

describe('parseQuery: structure', () => {
  it('treats empty and whitespace-only text as no filter', () => {
    assert.deepEqual(parseQuery(''), { sort: [] });
    assert.deepEqual(parseQuery(' \t\r\n '), { sort: [] });
  });

  it('parses a simple comparison', () => {
    assert.deepEqual(parseQuery('name = "x"'), {
      sort: [],
      filter: { kind: 'compare', left: sym('name'), op: '=', right: str('x') },
    });
  });

  it('binds and tighter than or', () => {
    assert.deepEqual(filter('a = 1 or b = 2 and c = 3'), {
      kind: 'or',
      operands: [eq('a', 1), { kind: 'and', operands: [eq('b', 2), eq('c', 3)] }],
    });
    assert.deepEqual(filter('a = 1 and b = 2 or c = 3'), {
      kind: 'or',
      operands: [{ kind: 'and', operands: [eq('a', 1), eq('b', 2)] }, eq('c', 3)],
    });
  });

  it('flattens chains of the same operator', () => {
    const operands = [eq('a', 1), eq('b', 2), eq('c', 3)];
    assert.deepEqual(filter('a = 1 and b = 2 and c = 3'), { kind: 'and', operands });
    assert.deepEqual(filter('a = 1 or b = 2 or c = 3'), { kind: 'or', operands });
  });

  it('lets parentheses override precedence', () => {
    assert.deepEqual(filter('(a = 1 or b = 2) and c = 3'), {
      kind: 'and',
      operands: [{ kind: 'or', operands: [eq('a', 1), eq('b', 2)] }, eq('c', 3)],
    });
    assert.deepEqual(filter('((a = 1))'), eq('a', 1));
  });

  it('applies not to everything to its right, as OpenZiti does', () => {
    const notAnd = { kind: 'not', operand: { kind: 'and', operands: [eq('a', 1), eq('b', 2)] } };
    assert.deepEqual(filter('not a = 1 and b = 2'), notAnd);
    assert.deepEqual(filter('not (a = 1 and b = 2)'), notAnd);
    assert.deepEqual(filter('(not a = 1) and b = 2'), {
      kind: 'and',
      operands: [{ kind: 'not', operand: eq('a', 1) }, eq('b', 2)],
    });
    assert.deepEqual(filter('c = 3 or not a = 1 or b = 2'), {
      kind: 'or',
      operands: [eq('c', 3), { kind: 'not', operand: { kind: 'or', operands: [eq('a', 1), eq('b', 2)] } }],
    });
    assert.deepEqual(filter('not not a = 1'), { kind: 'not', operand: { kind: 'not', operand: eq('a', 1) } });
  });

  it('parses constants, bare boolean symbols and isEmpty', () => {
    assert.deepEqual(filter('true'), { kind: 'const', value: true });
    assert.deepEqual(filter('false'), { kind: 'const', value: false });
    assert.deepEqual(filter('isAdmin'), { kind: 'boolSymbol', name: 'isAdmin' });
    assert.deepEqual(filter('not isAdmin'), { kind: 'not', operand: { kind: 'boolSymbol', name: 'isAdmin' } });
    assert.deepEqual(filter('isEmpty(roleAttributes)'), { kind: 'isEmpty', set: 'roleAttributes' });
    assert.deepEqual(filter('isEmpty( roleAttributes )'), { kind: 'isEmpty', set: 'roleAttributes' });
  });
});

describe('parseQuery: operators', () => {
  for (const op of ['=', '!=', '<', '<=', '>', '>='] as const) {
    it(`parses ${op} with and without spaces`, () => {
      const expected = { kind: 'compare', left: sym('cost'), op, right: num(5) };
      assert.deepEqual(filter(`cost ${op} 5`), expected);
      assert.deepEqual(filter(`cost${op}5`), expected);
    });
  }

  it('parses = null and != null', () => {
    assert.deepEqual(filter('externalId = null'), cmp('externalId', '=', nil));
    assert.deepEqual(filter('externalId != NULL'), cmp('externalId', '!=', nil));
  });

  it('parses = and != with booleans', () => {
    assert.deepEqual(filter('isAdmin = true'), cmp('isAdmin', '=', bool(true)));
    assert.deepEqual(filter('isAdmin != FALSE'), cmp('isAdmin', '!=', bool(false)));
  });

  it('parses contains, icontains and their negations', () => {
    const contains = (negated: boolean, ignoreCase: boolean, right: Literal) => ({
      kind: 'contains',
      left: sym('name'),
      negated,
      ignoreCase,
      right,
    });
    assert.deepEqual(filter('name contains "ab"'), contains(false, false, str('ab')));
    assert.deepEqual(filter('name not contains "ab"'), contains(true, false, str('ab')));
    assert.deepEqual(filter('name icontains "ab"'), contains(false, true, str('ab')));
    assert.deepEqual(filter('name not icontains 12'), contains(true, true, num(12)));
  });

  it('parses in and not in lists of each literal kind', () => {
    assert.deepEqual(filter('name in ["a", "b"]'), {
      kind: 'in',
      left: sym('name'),
      negated: false,
      values: [str('a'), str('b')],
    });
    assert.deepEqual(filter('cost not in [1,2.5 , -3]'), {
      kind: 'in',
      left: sym('cost'),
      negated: true,
      values: [num(1), num(2.5), num(-3)],
    });
    assert.deepEqual(filter('createdAt in [datetime(2026-01-02T03:04:05Z)]'), {
      kind: 'in',
      left: sym('createdAt'),
      negated: false,
      values: [dt('2026-01-02T03:04:05.000Z')],
    });
  });

  it('parses between and not between with numbers and datetimes', () => {
    assert.deepEqual(filter('cost between 1 and 10'), {
      kind: 'between',
      left: sym('cost'),
      negated: false,
      lower: num(1),
      upper: num(10),
    });
    const range = 'datetime(2026-01-01T00:00:00Z) and datetime(2027-01-01T00:00:00Z)';
    assert.deepEqual(filter(`createdAt not between ${range}`), {
      kind: 'between',
      left: sym('createdAt'),
      negated: true,
      lower: dt('2026-01-01T00:00:00.000Z'),
      upper: dt('2027-01-01T00:00:00.000Z'),
    });
  });

  it('keeps the and of between apart from the boolean and', () => {
    assert.deepEqual(filter('cost between 1 and 10 and isAdmin'), {
      kind: 'and',
      operands: [
        { kind: 'between', left: sym('cost'), negated: false, lower: num(1), upper: num(10) },
        { kind: 'boolSymbol', name: 'isAdmin' },
      ],
    });
  });

  it('parses set functions as operands', () => {
    assert.deepEqual(filter('anyOf(roleAttributes) = "sales"'), {
      kind: 'compare',
      left: { kind: 'anyOf', set: 'roleAttributes' },
      op: '=',
      right: str('sales'),
    });
    assert.deepEqual(filter('allOf(roleAttributes) contains "s"'), {
      kind: 'contains',
      left: { kind: 'allOf', set: 'roleAttributes' },
      negated: false,
      ignoreCase: false,
      right: str('s'),
    });
    assert.deepEqual(filter('count(roleAttributes) >= 2'), {
      kind: 'compare',
      left: { kind: 'count', set: 'roleAttributes' },
      op: '>=',
      right: num(2),
    });
    assert.deepEqual(filter('anyOf(ports) between 1 and 2'), {
      kind: 'between',
      left: { kind: 'anyOf', set: 'ports' },
      negated: false,
      lower: num(1),
      upper: num(2),
    });
  });
});

describe('parseQuery: literals', () => {
  const value = (text: string) => {
    const f = filter(`x = ${text}`);
    assert.equal(f?.kind, 'compare');
    return f.kind === 'compare' ? f.right : undefined;
  };

  it('decodes string escapes', () => {
    assert.deepEqual(value(String.raw`"a\"b\\c\fd\ne\rf\tg"`), str('a"b\\c\fd\ne\rf\tg'));
    assert.deepEqual(value('""'), str(''));
    assert.deepEqual(value('"ünïcødé 😀 and \'quotes\'"'), str("ünïcødé 😀 and 'quotes'"));
  });

  it('parses every number form', () => {
    assert.deepEqual(value('0'), num(0));
    assert.deepEqual(value('42'), num(42));
    assert.deepEqual(value('-7'), num(-7));
    assert.deepEqual(value('3.25'), num(3.25));
    assert.deepEqual(value('1e3'), num(1000));
    assert.deepEqual(value('-2.5E-2'), num(-0.025));
    assert.deepEqual(value('1e+2'), num(100));
  });

  it('normalises datetimes to UTC ISO strings with milliseconds', () => {
    assert.deepEqual(value('datetime(2026-01-02T03:04:05Z)'), dt('2026-01-02T03:04:05.000Z'));
    assert.deepEqual(value('datetime(2026-01-02t03:04:05z)'), dt('2026-01-02T03:04:05.000Z'));
    assert.deepEqual(value('datetime(2026-01-02T03:04:05.1Z)'), dt('2026-01-02T03:04:05.100Z'));
    assert.deepEqual(value('datetime(2026-01-02T03:04:05.123456789Z)'), dt('2026-01-02T03:04:05.123Z'));
    assert.deepEqual(value('datetime(2026-01-02T03:04:05+02:00)'), dt('2026-01-02T01:04:05.000Z'));
    assert.deepEqual(value('datetime(2026-01-01T01:30:00.5-01:45)'), dt('2026-01-01T03:15:00.500Z'));
    assert.deepEqual(value('datetime( 2024-02-29T00:00:00Z )'), dt('2024-02-29T00:00:00.000Z'));
    assert.deepEqual(value('datetime(0099-01-01T00:00:00Z)'), dt('0099-01-01T00:00:00.000Z'));
  });

  it('parses true, false and null case-insensitively', () => {
    assert.deepEqual(value('TRUE'), bool(true));
    assert.deepEqual(value('False'), bool(false));
    assert.deepEqual(value('nULL'), nil);
  });
});

describe('parseQuery: identifiers and keywords', () => {
  it('accepts dotted identifiers, with dashes after the first segment', () => {
    assert.deepEqual(filter('tags.my-key = "v"'), cmp('tags.my-key', '=', str('v')));
    assert.deepEqual(filter('primary.cert.allowed'), { kind: 'boolSymbol', name: 'primary.cert.allowed' });
    assert.deepEqual(filter('role_attributes = "v"'), cmp('role_attributes', '=', str('v')));
  });

  it('accepts single-quoted identifiers, including keywords', () => {
    assert.deepEqual(filter('\'tags.my-key\' = "v"'), cmp('tags.my-key', '=', str('v')));
    assert.deepEqual(filter("'limit' = 1"), eq('limit', 1));
    assert.deepEqual(parseQuery("sort by 'count' desc").sort, [{ field: 'count', direction: 'desc' }]);
  });

  it('matches keywords case-insensitively', () => {
    const lower = parseQuery(
      'name = "x" and b = 1 or not c = 2 and d in [1] and e not contains "a" and f icontains "b" ' +
        'and g between 1 and 2 and anyOf(s) = 1 and allOf(s) = 1 and count(s) = 1 and isEmpty(s) and true ' +
        'sort by name desc, id asc skip 1 limit none',
    );
    const upper = parseQuery(
      'name = "x" AND b = 1 OR NOT c = 2 And d IN [1] AND e NOT CONTAINS "a" AND f ICONTAINS "b" ' +
        'AND g BETWEEN 1 AND 2 AND ANYOF(s) = 1 AND AllOf(s) = 1 AND COUNT(s) = 1 AND ISEMPTY(s) AND TRUE ' +
        'SORT BY name DESC, id ASC SKIP 1 LIMIT NONE',
    );
    assert.deepEqual(upper, lower);
  });

  it('does not confuse field names with Object.prototype members', () => {
    assert.deepEqual(filter('constructor = 1'), eq('constructor', 1));
    assert.deepEqual(filter('toString'), { kind: 'boolSymbol', name: 'toString' });
  });

  it('keeps identifier case', () => {
    assert.deepEqual(filter('IsAdmin'), { kind: 'boolSymbol', name: 'IsAdmin' });
    assert.deepEqual(filter('android'), { kind: 'boolSymbol', name: 'android' });
  });
});

describe('parseQuery: sort, skip and limit', () => {
  const suffixes: [string, Query][] = [
    ['sort by name', { sort: [{ field: 'name', direction: 'asc' }] }],
    ['skip 5', { sort: [], skip: 5 }],
    ['limit 10', { sort: [], limit: 10 }],
    ['limit none', { sort: [], limit: 'none' }],
    ['skip 5 limit 10', { sort: [], skip: 5, limit: 10 }],
    [
      'sort by a desc, b asc,c skip 0 limit 2',
      {
        sort: [
          { field: 'a', direction: 'desc' },
          { field: 'b', direction: 'asc' },
          { field: 'c', direction: 'asc' },
        ],
        skip: 0,
        limit: 2,
      },
    ],
    ['limit -1', { sort: [], limit: -1 }],
  ];
  for (const [text, expected] of suffixes) {
    it(`parses suffix-only query "${text}"`, () => assert.deepEqual(parseQuery(text), expected));
  }

  it('parses suffixes after a filter', () => {
    assert.deepEqual(parseQuery('isAdmin sort by name desc skip 20 limit 10'), {
      filter: { kind: 'boolSymbol', name: 'isAdmin' },
      sort: [{ field: 'name', direction: 'desc' }],
      skip: 20,
      limit: 10,
    });
    assert.deepEqual(parseQuery('true limit none'), {
      filter: { kind: 'const', value: true },
      sort: [],
      limit: 'none',
    });
  });

  it('allows up to 5 sort fields', () => {
    assert.equal(parseQuery('sort by a, b, c, d, e').sort.length, 5);
  });
});

describe('parseQuery: errors', () => {
  it('throws ZitiQlError with 1-based positions', () => {
    assertSyntaxError('name = "x" #', 'Unexpected symbol: "#" at line: 1 column: 12', 1, 12);
    assertSyntaxError('name = "x"\n  and @', 'Unexpected symbol: "@" at line: 2 column: 7', 2, 7);
    assertSyntaxError('name = "😀" $', 'Unexpected symbol: "$"', 1, 12);
    assertSyntaxError('a ! b', 'Unexpected symbol: "!"', 1, 3);
  });

  it('reports unterminated strings where they start', () => {
    assertSyntaxError('name = "abc', 'unterminated string', 1, 8);
    assertSyntaxError('name = "abc\n"', 'unterminated string', 1, 8);
  });

  it('rejects unknown escapes and raw control characters in strings', () => {
    assertSyntaxError(String.raw`name = "a\qb"`, 'invalid escape sequence "\\q"', 1, 10);
    assertSyntaxError(String.raw`name = "a\u0041"`, 'invalid escape sequence "\\u"', 1, 10);
    assertSyntaxError('name = "a\tb"', 'control character U+0009', 1, 10);
  });

  it('rejects malformed datetimes', () => {
    assertSyntaxError('d = datetime(2026-02-30T00:00:00Z)', 'invalid datetime "2026-02-30T00:00:00Z"', 1, 5);
    assertSyntaxError('d = datetime(2026-01-01)', 'invalid datetime "2026-01-01"', 1, 5);
    assertSyntaxError('d = datetime(2026-01-01T24:00:00Z)', 'invalid datetime', 1, 5);
    assertSyntaxError('d = datetime(2026-01-01T00:00:00)', 'invalid datetime', 1, 5);
    assertSyntaxError('d = datetime(2026-01-01T00:00:00+25:00)', 'invalid datetime', 1, 5);
    assertSyntaxError('d = datetime(2026-01-01T00:00:00Z', 'unterminated datetime', 1, 5);
    assertSyntaxError('d = DateTime(2026-01-01T00:00:00Z)', 'datetime literals are written in lower case', 1, 5);
  });

  it('rejects malformed numbers and identifiers', () => {
    assertSyntaxError('cost = 0123', 'invalid number "0123"', 1, 8);
    assertSyntaxError('cost = 1.', 'invalid number "1."', 1, 8);
    assertSyntaxError("'1abc' = 1", 'invalid quoted identifier', 1, 1);
    assertSyntaxError("'abc = 1", 'invalid quoted identifier', 1, 1);
  });

  it('rejects empty and mixed in lists', () => {
    assertSyntaxError('name in []', "empty list after 'in' is not allowed", 1, 10);
    assertSyntaxError('name not in [ ]', "empty list after 'not in' is not allowed", 1, 15);
    assertSyntaxError('name in ["a", 1]', 'expected a string', 1, 15);
    assertSyntaxError('name in "a"', "expected '[' after 'in'", 1, 9);
    assertSyntaxError('name in ["a" "b"]', "expected ',' or ']'", 1, 14);
    assertSyntaxError('name in [true]', 'expected a string, a number or a datetime', 1, 10);
  });

  it('rejects too many sort fields at the sixth', () => {
    assertSyntaxError('sort by a, b, c, d, e, f', 'too many sort fields: at most 5', 1, 24);
  });

  it('rejects deeply nested expressions with a syntax error', () => {
    assert.deepEqual(filter(`${'('.repeat(100)}a = 1${')'.repeat(100)}`), eq('a', 1));
    assertSyntaxError(`${'('.repeat(101)}a = 1${')'.repeat(101)}`, 'nested too deeply', 1, 101);
    assertSyntaxError(`${'not '.repeat(100_000)}a`, 'nested too deeply', 1, 401);
  });

  it('bounds the conditions of one filter and names the limit', () => {
    const terms = (n: number, op: string) => Array.from({ length: n }, () => 'a = 1').join(` ${op} `);
    /** The column of the 257th condition, where the error points. */
    const column257 = (text: string) => [...text.matchAll(/a = 1/g)][256].index + 1;
    assert.equal((filter(terms(256, 'or')) as { operands: unknown[] }).operands.length, 256);
    const or = terms(257, 'or');
    assertSyntaxError(or, 'too many conditions: a filter may have at most 256', 1, column257(or));
    const and = terms(1001, 'and');
    assertSyntaxError(and, 'at most 256', 1, column257(and));
    // Nested and negated conditions count too, wherever they are.
    const mixed = `(${terms(200, 'or')}) and not (${terms(57, 'and')})`;
    assertSyntaxError(mixed, 'at most 256', 1, column257(mixed));
  });

  it('bounds the values of an in list and names the limit', () => {
    const list = (n: number) => `a in [${Array.from({ length: n }, (_, i) => i).join(',')}]`;
    assert.equal(parseQuery(list(1000)).filter?.kind, 'in');
    assertSyntaxError(list(1001), "too many values in the list after 'in': at most 1000", 1, list(1000).length + 1);
  });

  it('rejects subqueries', () => {
    assertSyntaxError('not isEmpty(from servicePolicies where anyOf(services) = "x")', 'subqueries', 1, 13);
    assertSyntaxError('count(from x where true) > 1', 'subqueries', 1, 7);
  });

  it('explains what was expected', () => {
    assertSyntaxError(
      'name =',
      "expected a string, a number, a datetime, true/false or null after '=' but found end of input",
      1,
      7,
    );
    assertSyntaxError('name < true', 'expected a string, a number or a datetime after \'<\' but found "true"', 1, 8);
    assertSyntaxError('name < null', "after '<'", 1, 8);
    assertSyntaxError('name contains datetime(2026-01-01T00:00:00Z)', 'expected a string or a number', 1, 15);
    assertSyntaxError('name = other', 'but found "other"', 1, 8);
    assertSyntaxError('name == "x"', 'but found "="', 1, 7);
    assertSyntaxError(
      'name = "x" foo',
      `expected 'and', 'or', 'sort by', 'skip', 'limit' or end of input but found "foo"`,
      1,
      12,
    );
    assertSyntaxError('name = "x" and', 'expected a condition', 1, 15);
    assertSyntaxError('(a = 1 or b = 2', "expected ')'", 1, 16);
    assertSyntaxError('anyOf(roles)', 'expected an operator', 1, 13);
    assertSyntaxError('anyOf roles = 1', "expected '(' after anyOf", 1, 7);
    assertSyntaxError('name not like "x"', "expected 'contains', 'icontains', 'in' or 'between' after 'not'", 1, 10);
    assertSyntaxError('cost between 1 or 2', "expected 'and' between the bounds", 1, 16);
    assertSyntaxError('cost between 1 and datetime(2026-01-01T00:00:00Z)', 'expected a number', 1, 20);
    assertSyntaxError('cost between "a" and "b"', 'expected a number or a datetime', 1, 14);
    assertSyntaxError('and = 1', 'expected a condition', 1, 1);
    assertSyntaxError('sort name', "expected 'by' after 'sort'", 1, 6);
    assertSyntaxError('sort by limit', "quote it as 'limit'", 1, 9);
    assertSyntaxError('sort by name skip 1 sort by x', "expected 'limit' or end of input", 1, 21);
    assertSyntaxError('sort by a desc b', "expected ',', 'skip', 'limit' or end of input", 1, 16);
    assertSyntaxError('skip 1.5', 'expected an integer after \'skip\' but found "1.5"', 1, 6);
    assertSyntaxError('limit all', "expected an integer or 'none' after 'limit'", 1, 7);
    assertSyntaxError('limit 5 skip 1', 'expected end of input but found "skip"', 1, 9);
  });
});
