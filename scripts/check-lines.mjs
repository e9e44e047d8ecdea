// No line of code is longer than 120 characters. The formatter lays code out within that width, but it does not wrap
// string literals, comments or test titles, so those are kept short where they are written; this checks that they are.
// Usage: node scripts/check-lines.mjs [DIR]   DIR: a git checkout, by default the one this script is in.
// Reads the git-tracked .ts, .mjs and .js files under src, test, bench, scripts and bin, except the vendored ones.
// Prints `file:line (N characters)` for each longer line and a count, and exits 1; prints nothing when there is none.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const LIMIT = 120;
const CODE_FILE = /^(src|test|bench|scripts|bin)\/.+\.(ts|mjs|js)$/;
// Copied from elsewhere and kept as their origin wrote them.
const VENDORED = ['test/vendor/', 'src/resources/openziti-config-types/'];

const root = process.argv[2]
  ? path.resolve(process.argv[2])
  : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 })
  .split('\0')
  .filter((file) => CODE_FILE.test(file) && !VENDORED.some((folder) => file.startsWith(folder)));

let over = 0;
for (const file of tracked) {
  const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
  lines.forEach((line, index) => {
    // Characters, not UTF-16 units: a line of accented letters or symbols is as long as it looks.
    const length = [...line.replace(/\r$/, '')].length;
    if (length <= LIMIT) return;
    over++;
    console.log(`${file}:${index + 1} (${length} characters)`);
  });
}
if (over > 0) {
  console.log(`${over} ${over === 1 ? 'line' : 'lines'} over ${LIMIT} characters`);
  process.exit(1);
}
