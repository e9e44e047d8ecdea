// Runs every test file with node's test runner (Node 20's --test takes no globs, so we list the files).
// Usage: node scripts/test.mjs [path-prefix ...]   e.g. node scripts/test.mjs test/e2e src/controller
//
// The test files are bundled first (esbuild: one module per test file, the sources they share split into common
// chunks, packages left to node_modules) and run as plain JavaScript with source maps. Compiling TypeScript in each
// test process through a loader cost about half a second of CPU per file. `import.meta.url` and `dirname` keep
// naming the source file, so paths a test computes from where it lives stay what they are in the source tree.
//
// With CTL_TEST_PG_URL set (a PostgreSQL server the tests may create databases on: README, "PostgreSQL tests"),
// the end-to-end tests run a second time with CTL_TEST_STORE=postgres, so that each of them is checked against
// both stores. The last line adds both runs up: "N passed, N failed".
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const prefixes = process.argv.slice(2).map((p) => relative(root, join(process.cwd(), p)));

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}

const files = [...walk(join(root, 'src')), ...walk(join(root, 'test'))]
  .filter((f) => prefixes.length === 0 || prefixes.some((p) => f.startsWith(p)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

/** Rewrites `import.meta.url` and `import.meta.dirname` of each source module into the source file's own. */
const sourceLocation = {
  name: 'source-location',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes(`${join('node_modules', '')}`)) return undefined;
      const text = readFileSync(args.path, 'utf8')
        .replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(args.path).href))
        .replace(/\bimport\.meta\.dirname\b/g, JSON.stringify(dirname(args.path)));
      return { contents: text, loader: 'ts' };
    });
  },
};

// Under node_modules (bare imports of packages resolve from there) and private to this run.
const outdir = join(root, 'node_modules', '.cache', 'ctl-tests', String(process.pid));
process.on('exit', () => rmSync(outdir, { recursive: true, force: true }));
await build({
  absWorkingDir: root,
  entryPoints: files,
  outdir,
  outbase: root,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
  plugins: [sourceLocation],
});
const bundled = (file) => join(outdir, file.replace(/\.ts$/, '.mjs'));

/**
 * One run of the test runner over `list`, its output passed through; resolves with its counts and exit code.
 * Three files at a time: on two cores, tests wait on sockets, timers and child processes as much as they compute.
 */
// The binaries the tests spawn keep their code caches here rather than in the user's cache directory.
const cacheHome = mkdtempSync(join(tmpdir(), 'ctl-test-cache-'));

function run(list, env) {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--test', '--test-concurrency=3', '--enable-source-maps', ...list.map(bundled)],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, NO_COLOR: '1', XDG_CACHE_HOME: cacheHome, ...env },
      },
    );
    let tail = '';
    const failures = new FailureLog();
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      tail = (tail + chunk.toString()).slice(-4000);
      failures.read(chunk.toString());
    });
    child.on('close', (code) => {
      const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(tail)?.[1] ?? 0);
      resolve({ code: code ?? 1, pass: count('pass'), fail: count('fail') + count('cancelled'), failures });
    });
  });
}

/**
 * Keeps every failed test's report (its `not ok` line and the block under it) from TAP output, so that the end of a
 * long log, which is all a CI summary may show, still names what failed and why.
 */
class FailureLog {
  reports = [];
  #partial = '';
  #open = null;

  read(text) {
    const lines = (this.#partial + text).split('\n');
    this.#partial = lines.pop();
    for (const line of lines) {
      if (/^\s*not ok \d+ - /.test(line)) {
        this.#open = [line];
        this.reports.push(this.#open);
      } else if (this.#open) {
        this.#open.push(line);
        // The YAML block under a result ends with its own indentation's `...`.
        if (/^\s*\.\.\.$/.test(line) || this.#open.length > 60) this.#open = null;
      }
    }
  }
}

const runs = [await run(files, {})];
const e2e = files.filter((f) => f.startsWith('test/e2e/'));
if (process.env.CTL_TEST_PG_URL && e2e.length > 0) {
  console.log('\n# end-to-end tests again, against PostgreSQL (CTL_TEST_STORE=postgres)');
  runs.push(await run(e2e, { CTL_TEST_STORE: 'postgres' }));
}
rmSync(cacheHome, { recursive: true, force: true });
const passed = runs.reduce((n, r) => n + r.pass, 0);
const failed = runs.reduce((n, r) => n + r.fail, 0);
const reports = runs.flatMap((r) => r.failures.reports);
if (reports.length > 0) {
  console.log(`\n# failures, repeated from above (${reports.length} reports, suites included)`);
  for (const report of reports) console.log(report.join('\n'));
}
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(runs.every((r) => r.code === 0) ? 0 : 1);
