// What ctl runs must be there when it is installed without devDependencies (as a package, or npm install
// --omit=dev): every package bundled into dist/ and every package src/ imports outside its tests is one the lockfile
// installs for production. The one exception is light-my-request, a devDependency that only inject() loads, for
// tests: the build leaves it out of dist/, and inject() says what it needs when it is missing
// (src/controller/inject.ts). Reads dist/ as `npm run build` wrote it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/spec.js';

/** Where src/ may import a devDependency, package by package (paths relative to src/). */
const DEV_IMPORTS: Record<string, readonly string[]> = { 'light-my-request': ['controller/inject.ts'] };

const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { dev?: boolean; devOptional?: boolean }>;
};
/** The packages a production install has at the top of node_modules (devOptional ones are there only with dev). */
const production = new Set(
  Object.entries(lock.packages)
    .filter(([where, entry]) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(where) && !entry.dev && !entry.devOptional)
    .map(([where]) => where.slice('node_modules/'.length)),
);

/** `@scope/name/file.js` -> `@scope/name`; `name/lib/x.js` -> `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return parts.slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
}

const filesUnder = (dir: string, keep: (file: string) => boolean) =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter(keep);

// Bare specifiers of run-time imports: `import type` is erased, and relative paths are our own files.
const STATIC = /^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\s+from\s+)?['"]([^'"./][^'"]*)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"./][^'"]*)['"]\s*\)/g;

/** Each package src/ imports outside its tests, with the files that import it. */
function sourceImports(): Map<string, string[]> {
  const src = path.join(REPO_ROOT, 'src');
  const found = new Map<string, string[]>();
  for (const file of filesUnder(src, (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
    const text = readFileSync(path.join(src, file), 'utf8');
    for (const m of [...text.matchAll(STATIC), ...text.matchAll(DYNAMIC)]) {
      if (m[1].startsWith('node:') || builtinModules.includes(m[1])) continue;
      const name = packageOf(m[1]);
      found.set(name, [...(found.get(name) ?? []), file]);
    }
  }
  return found;
}

/** Each package bundled into dist/, by the `// node_modules/...` line esbuild writes above every module it bundles. */
function bundledPackages(): Map<string, string[]> {
  const dist = path.join(REPO_ROOT, 'dist');
  const found = new Map<string, string[]>();
  for (const file of filesUnder(dist, (f) => /\.c?js$/.test(f))) {
    const text = readFileSync(path.join(dist, file), 'utf8');
    for (const m of text.matchAll(/^\/\/ (?:.*\/)?node_modules\/((?:@[^/\n]+\/)?[^/\n]+)\//gm)) {
      found.set(m[1], [...new Set([...(found.get(m[1]) ?? []), file])]);
    }
  }
  return found;
}

describe('what ctl runs is installed without devDependencies', () => {
  it('reads the lockfile: production packages, not the tools', () => {
    for (const name of ['commander', 'pg', 'better-sqlite3', 'ajv']) assert.ok(production.has(name), name);
    for (const name of ['light-my-request', 'esbuild', 'tsx', '@types/node']) assert.ok(!production.has(name), name);
  });

  it('src/ imports devDependencies only where named, and tests alone reach them', () => {
    const imports = sourceImports();
    assert.ok(imports.has('commander') || imports.has('@commander-js/extra-typings'), 'the reader finds imports');
    const wrong = [...imports].flatMap(([name, files]) =>
      production.has(name) ? [] : files.filter((f) => !DEV_IMPORTS[name]?.includes(f)).map((f) => `${f}: ${name}`),
    );
    assert.deepEqual(wrong, []);
  });

  it("src/ imports only packages package.json declares, none there only as another package's dependency", () => {
    const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const undeclared = [...sourceImports()]
      .filter(([name]) => !(name in manifest.dependencies) && !(name in DEV_IMPORTS))
      .map(([name, files]) => `${name}: ${files}`);
    assert.deepEqual(undeclared, []);
  });

  it('dist/ bundles production packages only', () => {
    const bundled = bundledPackages();
    for (const name of ['commander', 'undici']) assert.ok(bundled.has(name), `the reader finds ${name} in dist/`);
    const wrong = [...bundled].filter(([name]) => !production.has(name)).map(([name, files]) => `${name}: ${files}`);
    assert.deepEqual(wrong, []);
  });
});
