// The set-up's install step (scripts/install.mjs, `npm run setup`): it finds the running Node.js's headers so that
// better-sqlite3 compiles offline without a per-user npm setting, and says what is missing when an install fails.
// npm itself is replaced by a small script on PATH that records how it was called, so no package is installed here.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
// @ts-expect-error: a plain ES module of the repository's scripts, without type declarations
import { headerVersion, headersFor } from '../../scripts/install.mjs';
import { REPO_ROOT } from '../helpers/spec.js';

const work = mkdtempSync(path.join(tmpdir(), 'ctl-install-'));
after(() => rmSync(work, { recursive: true, force: true }));

function fakePrefix(name: string, version?: string): string {
  const prefix = path.join(work, name);
  mkdirSync(path.join(prefix, 'include', 'node'), { recursive: true });
  if (version) {
    const [major, minor, patch] = version.split('.');
    const lines = [`MAJOR_VERSION ${major}`, `MINOR_VERSION ${minor}`, `PATCH_VERSION ${patch}`];
    const header = lines.map((line) => `#define NODE_${line}\n`).join('');
    writeFileSync(path.join(prefix, 'include', 'node', 'node_version.h'), header);
  }
  return prefix;
}

/** A stand-in for npm: answers `config get` with nothing and records every other call, then exits with `code`. */
function fakeNpm(code: number): { bin: string; calls: string } {
  const bin = mkdtempSync(path.join(work, 'bin-'));
  const calls = path.join(bin, 'calls');
  const script = `#!/bin/sh
if [ "$1" = config ]; then echo; exit 0; fi
echo "$* nodedir=\${npm_config_nodedir:-}" >> '${calls}'
exit ${code}
`;
  writeFileSync(path.join(bin, 'npm'), script);
  chmodSync(path.join(bin, 'npm'), 0o755);
  return { bin, calls };
}

function runInstall(bin: string, args: string[] = []) {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}` };
  delete env.npm_config_nodedir;
  delete env.NPM_CONFIG_NODEDIR;
  const script = path.join(REPO_ROOT, 'scripts', 'install.mjs');
  return spawnSync(process.execPath, [script, ...args], { env, encoding: 'utf8' });
}

describe('install script: Node.js headers', () => {
  it('reads the version a header directory declares', () => {
    assert.equal(headerVersion(fakePrefix('v20', '20.19.4')), '20.19.4');
    assert.equal(headerVersion(fakePrefix('empty')), undefined);
  });

  it('uses <prefix>/include/node when it matches the running version, and says why it does not otherwise', () => {
    const execPath = path.join(fakePrefix('match', '20.19.4'), 'bin', 'node');
    assert.deepEqual(headersFor({ env: {}, execPath, version: '20.19.4', configuredNodedir: '' }), {
      nodedir: path.dirname(path.dirname(execPath)),
      source: 'found',
    });
    const other = headersFor({ env: {}, execPath, version: '22.1.0', configuredNodedir: '' });
    assert.match(other.missing, /holds the headers of Node\.js 20\.19\.4, not 22\.1\.0/);
    const none = headersFor({ env: {}, execPath: path.join(fakePrefix('none'), 'bin', 'node'), version: '20.19.4' });
    assert.match(none.missing, /include\/node has none$/);
  });

  it("keeps the caller's own setting, from the environment or npm's configuration", () => {
    const execPath = path.join(fakePrefix('kept', '20.19.4'), 'bin', 'node');
    const fromEnv = headersFor({ env: { npm_config_nodedir: '/opt/node' }, execPath, version: '20.19.4' });
    assert.deepEqual(fromEnv, { nodedir: '/opt/node', source: 'set' });
    const fromConfig = headersFor({ env: {}, execPath, version: '20.19.4', configuredNodedir: '/srv/node' });
    assert.deepEqual(fromConfig, { nodedir: '/srv/node', source: 'set' });
  });
});

describe('install script: running npm', () => {
  const running = { execPath: process.execPath, version: process.versions.node, configuredNodedir: '' };
  const expected = headersFor({ env: {}, ...running });

  it('hands npm the headers it found and succeeds when the SQLite module then loads', () => {
    const npm = fakeNpm(0);
    const run = runInstall(npm.bin);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(readFileSync(npm.calls, 'utf8'), `install --no-audit --no-fund nodedir=${expected.nodedir ?? ''}\n`);
  });

  it('runs npm ci under --ci', () => {
    const npm = fakeNpm(0);
    assert.equal(runInstall(npm.bin, ['--ci']).status, 0);
    assert.match(readFileSync(npm.calls, 'utf8'), /^ci --no-audit --no-fund /);
  });

  it('fails with npm, and tells the reader to run the set-up again rather than npm rebuild', () => {
    const npm = fakeNpm(7);
    const run = runInstall(npm.bin);
    assert.equal(run.status, 7);
    assert.match(run.stderr, /setup: error: npm install failed/);
    assert.match(run.stderr, /run `npm run setup` again: a failed install leaves no node_modules/);
  });
});
