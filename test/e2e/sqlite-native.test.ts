// When better-sqlite3's native module cannot load (npm 12 skipped its unapproved install script, a failed compile,
// a build for another Node.js), `ctl controller start` and `ctl quickstart` say so and how to fix it, exit 1, and
// print no stack trace. CTL_SQLITE_BINDING points the loader at a build that does not exist.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { describeRun, runCtl, type CtlResult } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';

function assertNativeModuleMessage(args: string[], r: CtlResult, missing: string): void {
  const run = describeRun(args, r);
  assert.equal(r.code, 1, run);
  assert.equal(r.stdout, '', run);
  assert.ok(r.stderr.includes(`the SQLite native module (better-sqlite3) is not built (${missing})`), run);
  assert.match(r.stderr, /^ {2,}rebuild it with: npm rebuild better-sqlite3$/m, run);
  assert.match(r.stderr, /compiles from source: that needs python3, make, a C\+\+ compiler and Node\.js headers/, run);
  assert.doesNotMatch(r.stderr, /unexpected error|bug in ctl/, run);
  assert.doesNotMatch(r.stderr, /^\s+at /m, `a stack trace was printed\n${run}`);
}

describe('a missing SQLite native module', () => {
  let tmp: string;
  let missing: string;

  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-sqlite-native-'));
    missing = path.join(tmp, 'no-build', 'better_sqlite3.node');
  });
  after(() => rm(tmp, { recursive: true, force: true }));

  it('makes ctl controller start say so and how to fix it (exit 1)', async () => {
    const args = ['controller', 'start', '--data-dir', path.join(tmp, 'start'), '--port', '0'];
    const r = await runCtl(args, { env: { CTL_SQLITE_BINDING: missing }, process: true });
    assertNativeModuleMessage(args, r, missing);
    assert.match(r.stderr, /^error: the SQLite native module/m);
  });

  it('makes ctl quickstart show the same message from the controller it started', async () => {
    const args = ['quickstart', '--port', String(await freePort())];
    const env = { CTL_DATA_DIR: path.join(tmp, 'quickstart'), CTL_SQLITE_BINDING: missing };
    const r = await runCtl(args, { env, configDir: path.join(tmp, 'config'), process: true });
    assertNativeModuleMessage(args, r, missing);
    assert.match(r.stderr, /^error: the controller exited before it was ready/m);
  });
});
