/**
 * Whether a version range is one OpenZiti accepts in an OS posture check (it parses each with the Go library
 * blang/semver 3.5, `ParseRange`, and refuses the check otherwise). Written from that library's rules, quirks
 * included, so that what we accept is exactly what a real controller accepts:
 * - a range is tokens separated by spaces (a space right after `<`, `>` or `=` joins), `||` between alternatives;
 *   a token of one character is dropped (so `1` alone is an empty range, refused);
 * - each token is a comparator (`=`, `==`, `!=`, `!`, `>`, `>=`, `<`, `<=`, or none) and a full
 *   MAJOR.MINOR.PATCH version (optional -prerelease and +build; no leading zeros, no `v`);
 * - `1.2.x` and `1.x` are wildcards, expanded to a pair of comparators.
 * Returns why the range is refused, or undefined when it is accepted.
 */
export function semverRangeError(range: string): string | undefined {
  const parts = splitTokens(range);
  const alternatives: string[][] = [];
  let start = 0;
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] !== '||') continue;
    if (i === 0) return "a range may not start with '||'";
    alternatives.push(parts.slice(start, i));
    start = i + 1;
  }
  if (start === parts.length) return parts.length === 0 ? 'the range is empty' : "a range may not end with '||'";
  alternatives.push(parts.slice(start));
  for (const alternative of alternatives) {
    for (const token of alternative.flatMap(expandWildcard)) {
      const split = splitComparator(token);
      if (typeof split === 'string') return split;
      const [op, version] = split;
      if (!COMPARATORS.has(op)) return `'${op}' is not a comparator (use =, !=, >, >=, < or <=)`;
      const problem = versionError(version);
      if (problem) return `'${version}' is not a version: ${problem}`;
    }
  }
  return undefined;
}

const COMPARATORS = new Set(['', '=', '==', '!', '!=', '>', '>=', '<', '<=']);

function splitTokens(s: string): string[] {
  const out: string[] = [];
  let last = 0;
  let lastChar = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === ' ' && !'<>='.includes(lastChar === '' ? '#' : lastChar)) {
      if (last < i - 1) out.push(s.slice(last, i));
      last = i + 1;
    } else if (s[i] !== ' ') {
      lastChar = s[i];
    }
  }
  if (last < s.length - 1) out.push(s.slice(last));
  return out.map((t) => t.replaceAll(' ', ''));
}

function splitComparator(token: string): [string, string] | string {
  const i = token.search(/\d/);
  if (i === -1) return `no version in '${token}'`;
  return [token.slice(0, i).trim(), token.slice(i)];
}

/** `1.2.x` → `>=1.2.0 <1.3.0`, `>1.x` → `>=2.0.0`, and so on, as the Go library expands them. */
function expandWildcard(token: string): string[] {
  if (!token.includes('x')) return [token];
  const split = splitComparator(token);
  if (typeof split === 'string') return [token];
  const [op, version] = split;
  const pieces = version.split('.');
  const wildcard = pieces[pieces.length - 1] === 'x' && pieces.length <= 3 ? pieces.length : 0;
  let flat = version.replace('.x.x', '.x').replace('.x', '.0');
  if (flat.split('.').length === 2) flat += '.0';
  const out: string[] = [];
  let operator = '';
  let increment = false;
  switch (op) {
    case '>':
      [operator, increment] = ['>=', true];
      break;
    case '>=':
      operator = '>=';
      break;
    case '<':
      operator = '<';
      break;
    case '<=':
      [operator, increment] = ['<', true];
      break;
    case '':
    case '=':
    case '==':
      out.push(`>=${flat}`);
      [operator, increment] = ['<', true];
      break;
    case '!=':
    case '!':
      out.push(`<${flat}`);
      [operator, increment] = ['>=', true];
      break;
  }
  const bumped = !increment ? flat : wildcard === 3 ? bump(flat, 1) : wildcard === 2 ? bump(flat, 0) : '';
  out.push(operator + bumped);
  return out;
}

function bump(version: string, index: number): string {
  const pieces = version.split('.');
  if (!/^[+-]?\d+$/.test(pieces[index] ?? '')) return '';
  pieces[index] = String(Number.parseInt(pieces[index], 10) + 1);
  return pieces.join('.');
}

const UINT64_MAX = 2n ** 64n - 1n;
const ALPHANUMERIC = /^[0-9A-Za-z-]+$/;

function numberError(what: string, s: string): string | undefined {
  if (!/^\d+$/.test(s)) return `the ${what} number must be digits`;
  if (s.length > 1 && s[0] === '0') return `the ${what} number may not have leading zeros`;
  if (BigInt(s) > UINT64_MAX) return `the ${what} number is too large`;
  return undefined;
}

/** MAJOR.MINOR.PATCH[-prerelease][+build], strictly. */
function versionError(v: string): string | undefined {
  const first = v.indexOf('.');
  const second = first === -1 ? -1 : v.indexOf('.', first + 1);
  if (second === -1) return 'expected MAJOR.MINOR.PATCH';
  let patch = v.slice(second + 1);
  let build: string[] = [];
  let prerelease: string[] = [];
  const plus = patch.indexOf('+');
  if (plus !== -1) [build, patch] = [patch.slice(plus + 1).split('.'), patch.slice(0, plus)];
  const dash = patch.indexOf('-');
  if (dash !== -1) [prerelease, patch] = [patch.slice(dash + 1).split('.'), patch.slice(0, dash)];
  const problem =
    numberError('major', v.slice(0, first)) ??
    numberError('minor', v.slice(first + 1, second)) ??
    numberError('patch', patch);
  if (problem) return problem;
  for (const p of prerelease) {
    if (p === '') return 'an empty prerelease part';
    if (/^\d+$/.test(p) ? numberError('prerelease', p) : !ALPHANUMERIC.test(p)) return `bad prerelease part '${p}'`;
  }
  for (const b of build) if (!ALPHANUMERIC.test(b)) return `bad build part '${b}'`;
  return undefined;
}

/**
 * Whether `version` (as a client reports it, e.g. `10.0.19041`) is in `range`, as OpenZiti's OS posture check
 * evaluates it: the version must parse strictly (else the check fails), and one `||` alternative must hold with
 * all its comparators. A range this module refuses matches nothing.
 */
export function semverRangeSatisfied(range: string, version: string): boolean {
  if (versionError(version) !== undefined || semverRangeError(range) !== undefined) return false;
  const alternatives: string[][] = [[]];
  for (const part of splitTokens(range)) {
    if (part === '||') alternatives.push([]);
    else alternatives[alternatives.length - 1].push(...expandWildcard(part));
  }
  return alternatives.some((tokens) =>
    tokens.every((token) => {
      const [op, bound] = splitComparator(token) as [string, string];
      const c = compareVersions(version, bound);
      switch (op) {
        case '>':
          return c > 0;
        case '>=':
          return c >= 0;
        case '<':
          return c < 0;
        case '<=':
          return c <= 0;
        case '!':
        case '!=':
          return c !== 0;
        default:
          return c === 0;
      }
    }),
  );
}

/** Semantic version precedence (build metadata ignored; a prerelease sorts before its release). */
function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const core = v.split('+')[0];
    const dash = core.indexOf('-');
    const numbers = (dash === -1 ? core : core.slice(0, dash)).split('.').map((n) => BigInt(n));
    return { numbers, pre: dash === -1 ? [] : core.slice(dash + 1).split('.') };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) if (x.numbers[i] !== y.numbers[i]) return x.numbers[i] < y.numbers[i] ? -1 : 1;
  if (x.pre.length === 0 || y.pre.length === 0)
    return y.pre.length - x.pre.length === 0 ? 0 : x.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.min(x.pre.length, y.pre.length); i++) {
    const [p, q] = [x.pre[i], y.pre[i]];
    if (p === q) continue;
    const [pn, qn] = [/^\d+$/.test(p), /^\d+$/.test(q)];
    if (pn && qn) return BigInt(p) < BigInt(q) ? -1 : 1;
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return x.pre.length - y.pre.length;
}
