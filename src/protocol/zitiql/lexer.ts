/**
 * ZitiQL tokenizer (wire-protocol section 3). Keywords are not distinguished here: they arrive as
 * `word` tokens and the parser matches them case-insensitively, because whether `limit` is a keyword
 * depends on where it appears only in the parser's view.
 */

/** A syntax error, positioned (1-based) where the offending text starts. */
export class ZitiQlError extends Error {
  override name = 'ZitiQlError';
  readonly line: number;
  readonly column: number;

  constructor(message: string, line: number, column: number) {
    super(message);
    this.line = line;
    this.column = column;
  }
}

export interface Position {
  line: number;
  column: number;
}

export type Token = Position & { text: string } & (
    | { kind: 'word' }
    /** `'tags.my-key'`: always an identifier, even when its name is a keyword. */
    | { kind: 'quotedIdentifier'; name: string }
    | { kind: 'string'; value: string }
    | { kind: 'number'; value: number }
    | { kind: 'datetime'; value: string }
    /** Punctuation and comparison operators: ( ) [ ] , = != < <= > >= */
    | { kind: 'symbol' }
    | { kind: 'eof' }
  );

const IDENTIFIER = /[A-Za-z][A-Za-z_]*(?:\.[A-Za-z][A-Za-z_-]*)*/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?(?:0|[1-9][0-9]*))?/y;
/** Characters that may not directly follow a number; catches `0123`, `1.`, `12abc` as one bad number. */
const NUMBER_TAIL = /[A-Za-z0-9_.]/;
const BAD_NUMBER = /[-+A-Za-z0-9_.]+/y;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const SYMBOLS = ['!=', '<=', '>=', '(', ')', '[', ']', ',', '=', '<', '>'];
const ESCAPES = new Map([
  ['"', '"'],
  ['\\', '\\'],
  ['f', '\f'],
  ['n', '\n'],
  ['r', '\r'],
  ['t', '\t'],
]);
const DATETIME_PREFIX = 'datetime(';

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';

/** Tokenizes the whole text; the last token is always `eof`. Throws ZitiQlError. */
export function tokenize(text: string): Token[] {
  const positions = new PositionTracker(text);
  const tokens: Token[] = [];
  let i = 0;

  function fail(message: string, index: number): never {
    const { line, column } = positions.at(index);
    throw new ZitiQlError(`${message} at line ${line}, column ${column}`, line, column);
  }

  while (i < text.length) {
    const ch = text[i];
    if (isWhitespace(ch)) {
      i++;
      continue;
    }
    const start = i;
    const at = positions.at(start);

    const datetimePrefix = text.slice(i, i + DATETIME_PREFIX.length);
    if (datetimePrefix.toLowerCase() === DATETIME_PREFIX) {
      if (datetimePrefix !== DATETIME_PREFIX) {
        fail(`datetime literals are written in lower case: datetime(2026-01-02T03:04:05Z)`, start);
      }
      const close = text.indexOf(')', i + DATETIME_PREFIX.length);
      if (close < 0) fail(`unterminated datetime literal: missing ")"`, start);
      const body = text.slice(i + DATETIME_PREFIX.length, close).trim();
      const value = parseDatetime(body);
      if (value === undefined) {
        fail(`invalid datetime "${body}": expected RFC3339 such as datetime(2026-01-02T03:04:05Z)`, start);
      }
      i = close + 1;
      tokens.push({ kind: 'datetime', value, text: text.slice(start, i), ...at });
      continue;
    }

    if (ch === '"') {
      const { value, end } = readString(text, i, fail);
      i = end;
      tokens.push({ kind: 'string', value, text: text.slice(start, i), ...at });
      continue;
    }

    if (ch === "'") {
      IDENTIFIER.lastIndex = i + 1;
      const match = IDENTIFIER.exec(text);
      if (!match || text[IDENTIFIER.lastIndex] !== "'") {
        fail(`invalid quoted identifier: expected a field name such as 'tags.my-key'`, start);
      }
      i = IDENTIFIER.lastIndex + 1;
      tokens.push({ kind: 'quotedIdentifier', name: match[0], text: text.slice(start, i), ...at });
      continue;
    }

    IDENTIFIER.lastIndex = i;
    const word = IDENTIFIER.exec(text);
    if (word) {
      i = IDENTIFIER.lastIndex;
      tokens.push({ kind: 'word', text: word[0], ...at });
      continue;
    }

    NUMBER.lastIndex = i;
    const number = NUMBER.exec(text);
    if (number) {
      if (NUMBER_TAIL.test(text[NUMBER.lastIndex] ?? '')) {
        BAD_NUMBER.lastIndex = i;
        fail(`invalid number "${BAD_NUMBER.exec(text)![0]}"`, start);
      }
      i = NUMBER.lastIndex;
      tokens.push({ kind: 'number', value: Number(number[0]), text: number[0], ...at });
      continue;
    }

    const symbol = SYMBOLS.find((s) => text.startsWith(s, i));
    if (symbol) {
      i += symbol.length;
      tokens.push({ kind: 'symbol', text: symbol, ...at });
      continue;
    }

    // Same wording as the Go controller's ANTLR errors, which users may already know.
    const bad = String.fromCodePoint(text.codePointAt(i)!);
    throw new ZitiQlError(`Unexpected symbol: "${bad}" at line: ${at.line} column: ${at.column}`, at.line, at.column);
  }

  tokens.push({ kind: 'eof', text: '', ...positions.at(text.length) });
  return tokens;
}

/** Reads a double-quoted string starting at `start`; returns the decoded value and the index after it. */
function readString(
  text: string,
  start: number,
  fail: (message: string, index: number) => never,
): { value: string; end: number } {
  let value = '';
  let i = start + 1;
  for (;;) {
    const ch = text[i];
    if (ch === undefined || ch === '\n' || ch === '\r') {
      fail(`unterminated string: missing closing '"'`, start);
    }
    if (ch === '"') return { value, end: i + 1 };
    if (ch === '\\') {
      const escaped = ESCAPES.get(text[i + 1]);
      if (escaped === undefined) {
        const seq = text[i + 1] === undefined ? '\\' : `\\${text[i + 1]}`;
        fail(`invalid escape sequence "${seq}" in string (allowed: \\" \\\\ \\f \\n \\r \\t)`, i);
      }
      value += escaped;
      i += 2;
      continue;
    }
    if (ch < ' ') {
      const code = `U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
      fail(`control character ${code} must be escaped in a string`, i);
    }
    value += ch;
    i++;
  }
}

/**
 * Parses an RFC3339 timestamp into ISO-8601 UTC with milliseconds, or undefined when malformed or out
 * of range. Fractions beyond milliseconds are truncated, matching the stored precision.
 */
export function parseDatetime(text: string): string | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  const offsetMinutes = m[8] ? (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 60 + Number(m[10])) : 0;
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth(year, month) ||
    hour > 23 ||
    minute > 59 ||
    second > 60 || // leap second, rolled into the next minute
    (m[8] && (Number(m[9]) > 23 || Number(m[10]) > 59))
  ) {
    return undefined;
  }
  // Date.UTC maps years 0-99 to 1900-1999, so the year is set separately.
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, millis));
  date.setUTCFullYear(year);
  const utc = new Date(date.getTime() - offsetMinutes * 60_000);
  const utcYear = utc.getUTCFullYear();
  // Outside 0000-9999 toISOString() switches to 6-digit years, which would break text ordering.
  return utcYear >= 0 && utcYear <= 9999 ? utc.toISOString() : undefined;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Maps string indexes to 1-based line/column (in code points), incrementally for forward scans. */
class PositionTracker {
  private index = 0;
  private line = 1;
  private column = 1;

  constructor(private readonly text: string) {}

  at(target: number): Position {
    if (target < this.index) {
      this.index = 0;
      this.line = 1;
      this.column = 1;
    }
    for (; this.index < target; this.index++) {
      const code = this.text.charCodeAt(this.index);
      if (code === 10) {
        this.line++;
        this.column = 1;
      } else if (code < 0xdc00 || code > 0xdfff) {
        // The low half of a surrogate pair is not a column of its own.
        this.column++;
      }
    }
    return { line: this.line, column: this.column };
  }
}
