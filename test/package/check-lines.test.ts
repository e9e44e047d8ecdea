// scripts/check-lines.mjs, run on small git checkouts made here: it names every code line over 120 characters and
// fails, and it looks only at the files it is meant to (tracked code under the code folders, not the vendored ones).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/spec.js';

const script = path.join(REPO_ROOT, 'scripts', 'check-lines.mjs');
const work = mkdtempSync(path.join(tmpdir(), 'ctl-check-lines-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** A git checkout of `tracked` (path -> text), with `untracked` files beside them that git does not know. */
function checkout(name: string, tracked: Record<string, string>, untracked: Record<string, string> = {}): string {
  const dir = path.join(work, name);
  for (const [file, text] of Object.entries({ ...tracked, ...untracked })) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  for (const args of [
    ['init', '-q'],
    ['add', '--', ...Object.keys(tracked)],
  ]) {
    const git = spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
    assert.equal(git.status, 0, git.stderr);
  }
  return dir;
}

const check = (dir: string) => spawnSync(process.execPath, [script, dir], { encoding: 'utf8' });
/** A comment line of exactly `n` characters. */
const comment = (n: number) => `// ${'x'.repeat(n - 3)}`;

describe('scripts/check-lines.mjs', () => {
  it('names each line over 120 characters by file and line, counts them and exits 1', () => {
    const dir = checkout('long', {
      'src/a.ts': `${comment(120)}\n${comment(121)}\n`,
      'test/b.test.ts': `const ok = 1;\n${comment(200)}\n`,
      'bench/c.mjs': comment(130),
      'scripts/d.js': comment(120),
      'bin/e.js': `#!/usr/bin/env node\n${comment(125)}`,
    });
    const r = check(dir);
    assert.equal(r.status, 1);
    assert.equal(
      r.stdout,
      'bench/c.mjs:1 (130 characters)\nbin/e.js:2 (125 characters)\nsrc/a.ts:2 (121 characters)\n' +
        'test/b.test.ts:2 (200 characters)\n4 lines over 120 characters\n',
    );
  });

  it('reads only tracked .ts, .mjs and .js files of the code folders, and leaves the vendored ones', () => {
    const long = comment(150);
    const dir = checkout(
      'elsewhere',
      {
        'src/fits.ts': `${comment(120)}\n`,
        'docs/guide.md': long,
        'src/resources/catalogue.json': long,
        'top-level.ts': long,
        'src/cli/notes.txt': long,
        'test/vendor/openziti-edge-api/spec.ts': long,
        'src/resources/openziti-config-types/intercept.v1.ts': long,
      },
      { 'src/not-added.ts': long },
    );
    const r = check(dir);
    assert.equal(r.status, 0, r.stdout);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, '');
  });

  it('counts characters, not bytes or UTF-16 units, and says "1 line" for one', () => {
    const dir = checkout('wide', {
      'src/wide.ts': `// ${'é'.repeat(117)}\n// ${'𝄞'.repeat(117)}\n// ${'𝄞'.repeat(118)}\n`,
    });
    const r = check(dir);
    assert.equal(r.status, 1);
    assert.equal(r.stdout, 'src/wide.ts:3 (121 characters)\n1 line over 120 characters\n');
  });
});
