/**
 * Hostile requests derived from a served Swagger 2.0 document: for each operation, paths with ids no entity could
 * have, bodies built from the operation's body schema with one hostile value of the declared type at a time, and
 * hostile filters and paging on lists. Deterministic for a seed, bounded in count.
 */

/** A small seeded generator (mulberry32): the same seed gives the same requests. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A number written into the JSON text as is: `1e309` and 30 digits cannot be a JS number and stay themselves. */
export class RawNumber {
  constructor(readonly text: string) {}
}

/** JSON text of a value that may hold RawNumbers. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Ids in a path, already percent-encoded: control characters, NUL, far too long, injection, odd Unicode. */
export const HOSTILE_IDS = [
  ...['%00', 'a%00b', '%1B%5B2J', '%7F', '%C2%85', 'i'.repeat(300)],
  ...["x'%20OR%20'1'%3D'1", '%F0%9F%98%80', '%25', '%E2%80%AE', '-1', '1e309'],
];

const HUGE = [
  ...['1e308', '1e309', '-1e309', '123456789012345678901234567890'],
  ...['9223372036854775808', '-9223372036854775809', '1.5', '-0.0'],
];

/** Values of the wrong type or out of any bound, for a declared JSON type. */
export function hostileValues(type: string | undefined): unknown[] {
  const wrongTypes: unknown[] = [null, true, [], {}, 'text', 0];
  switch (type) {
    case 'integer':
    case 'number':
      return [...HUGE.map((t) => new RawNumber(t)), -1, ...wrongTypes];
    case 'string':
      return [
        ...['', '\u0000', 'nul\u0000in', '\u001b[2J', '\ud800', '\u202e', 'x'.repeat(5000)],
        ...['#all', '@x', 'null', 1, new RawNumber('1e309')],
      ];
    case 'boolean':
      return ['true', 1, new RawNumber('1e309'), null];
    case 'array': {
      const many = Array.from({ length: 300 }, (_, i) => `a${i}`);
      return [{}, 'x', [null], [new RawNumber('1e309')], ['\u0000'], many, [[[]]]];
    }
    case 'object':
      return [[], 'x', { '\u0000': 1 }, { ['k'.repeat(200)]: 1 }, { n: new RawNumber('1e999') }, deep(40)];
    default:
      return wrongTypes;
  }
}

function deep(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { d: v };
  return v;
}

/** Filters a list may be given: integers compared with fractions and numbers beyond range, bad text, bad syntax. */
export const HOSTILE_FILTERS = [
  'cost = 1.5',
  'cost < 1e999',
  'maxIdleTimeMillis = 1e309',
  'maxIdleTimeMillis > 123456789012345678901234567890',
  'count(roleAttributes) = 0.5',
  'name = "\u0000"',
  'name contains "\u001b"',
  'id in ["a", 1]',
  'createdAt > datetime(9999-99-99T99:99:99Z)',
  'tags.x = 1e999',
  'tags.x = -1e309',
  'name = "x" limit 1e309',
  'true skip 123456789012345678901234567890',
  'name = "x" sort by nosuch',
  '((((((((((name = "x"))))))))))',
];

export const HOSTILE_PAGING: Array<Record<string, string>> = [
  { limit: '1e309' },
  { limit: '-1' },
  { offset: '123456789012345678901234567890' },
  { limit: '1.5' },
  { offset: '\u0000' },
];

/** A plausible value of a schema (the body around the one hostile value should otherwise pass). */
export function plausible(schema: Schema | undefined, definitions: Record<string, Schema>, n: number): unknown {
  const s = resolve(schema, definitions);
  if (!s) return 'fuzz';
  if (s.enum?.length) return s.enum.find((v) => v !== null);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const name of s.required ?? []) out[name] = plausible(s.properties?.[name], definitions, n);
      return out;
    }
    default:
      return `fuzz-${n}`;
  }
}

export interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  minimum?: number;
  properties?: Record<string, Schema>;
  required?: string[];
}

export function resolve(schema: Schema | undefined, definitions: Record<string, Schema>): Schema | undefined {
  if (schema?.$ref) return definitions[schema.$ref.replace('#/definitions/', '')];
  return schema;
}

/** The declared JSON type of a property (its first non-null type). */
export function declaredType(schema: Schema | undefined, definitions: Record<string, Schema>): string | undefined {
  const s = resolve(schema, definitions);
  return Array.isArray(s?.type) ? s.type.find((t) => t !== 'null') : s?.type;
}

/** Up to `count` of `items`, picked with `random` (all of them when there are fewer). */
export function pick<T>(items: readonly T[], count: number, random: () => number): T[] {
  if (items.length <= count) return [...items];
  const pool = [...items];
  const out: T[] = [];
  while (out.length < count) out.push(pool.splice(Math.floor(random() * pool.length), 1)[0]);
  return out;
}
