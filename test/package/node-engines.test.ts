// Every package the lockfile installs, dependencies and devDependencies alike, must run on the oldest Node.js ctl
// supports (package.json `engines`): the tests run there too, and npm warns (or, with engine-strict, refuses) when
// a package declares a newer one. Checked from package-lock.json, which records each package's `engines`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/spec.js';

type Version = [number, number, number];

/** `>=20.19` -> [20, 19, 0]: the oldest Node.js a `>=` range admits. */
function minimumOf(range: string): Version {
  const m = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  if (!m) throw new Error(`package.json engines.node '${range}' is not of the form >=X.Y`);
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
}

/** The first `parts` parts of a version, the rest zero. */
function prefix(version: Version, parts: number): Version {
  return [0, 1, 2].map((i) => (i < parts ? version[i]! : 0)) as Version;
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/**
 * Whether `version` satisfies an npm range of the forms the lockfile holds: `*`, `20.x`, `10.* || >= 12.*`, `>=18`,
 * `>= 16.0.0`, `^18.17.0 || >=20.5.0`, `~1.2`, and space-separated comparators that must all hold.
 */
function satisfies(version: Version, range: string): boolean {
  return range.split('||').some((clause) => {
    const comparators = clause
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
      .split(/\s+/)
      .filter(Boolean);
    return comparators.every((comparator) => holds(version, comparator));
  });
}

function holds(version: Version, comparator: string): boolean {
  const m = /^(>=|<=|>|<|=|\^|~)?v?(\d+|x|\*)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$/.exec(comparator);
  if (comparator === '*' || comparator === '') return true;
  if (!m) throw new Error(`cannot read the version range '${comparator}'`);
  const op = m[1] ?? '=';
  const parts = [m[2], m[3], m[4]].map((p) => (p === undefined || p === 'x' || p === '*' ? undefined : Number(p)));
  const given = parts.indexOf(undefined);
  const known = given === -1 ? 3 : given;
  const bound: Version = [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0];
  const c = compare(version, bound);
  switch (op) {
    case '>=':
      return c >= 0;
    case '>':
      // `>20` is 21 and above: only the parts given are compared.
      return compare(prefix(version, known), prefix(bound, known)) > 0;
    case '<=':
      return c <= 0;
    case '<':
      return c < 0;
    case '^':
      return c >= 0 && version[0] === bound[0];
    case '~':
      return c >= 0 && version[0] === bound[0] && (known < 2 || version[1] === bound[1]);
    default:
      // `20.x` or `20`: every version with that prefix; `20.19.0`: that version.
      return version.slice(0, known).every((v, i) => v === bound[i]);
  }
}

describe('Node.js versions', () => {
  it('reads the ranges the lockfile holds', () => {
    const v20: Version = [20, 19, 0];
    const admitting = ['*', '>=18', '>= 16.0.0', '>= 10.x', '10.* || >= 12.*', '^18.17.0 || >=20.5.0', '20.x || 22.x'];
    for (const range of [...admitting, '>=20.19', '~20.19']) {
      assert.equal(satisfies(v20, range), true, range);
    }
    assert.equal(satisfies(v20, '>19'), true);
    for (const range of ['>=22', '>= 20.19.1', '^18.17.0', '22.x || 24.x', '~20.18', '<20', '>20']) {
      assert.equal(satisfies(v20, range), false, range);
    }
  });

  it('every locked package runs on the oldest Node.js ctl supports', () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    const oldest = minimumOf(pkg.engines.node);
    const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
    };
    const refusing = Object.entries(lock.packages).flatMap(([where, entry]) => {
      const node = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      return node && !satisfies(oldest, node) ? [`${where}@${entry.version}: node ${node}`] : [];
    });
    assert.deepEqual(refusing, [], `packages that need a newer Node.js than ${pkg.engines.node}`);
  });
});
