// Runs every test file with node's test runner (Node 20's --test takes no globs, so we list the files).
// Usage: node scripts/test.mjs [path-prefix ...]   e.g. node scripts/test.mjs test/e2e src/controller
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

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
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', '--import', 'tsx', ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, NO_COLOR: '1' },
});
process.exit(result.status ?? 1);
