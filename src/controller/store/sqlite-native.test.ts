import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { describeFailure } from '../../cli/output/failure.js';
import { SqliteNativeError, describeLoadFailure, loadSqlite, openSqlite } from './sqlite-native.js';

const dir = mkdtempSync(join(tmpdir(), 'ctl-sqlite-native-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function loadError(bindingPath: string): SqliteNativeError {
  try {
    loadSqlite(bindingPath);
  } catch (err) {
    assert.ok(err instanceof SqliteNativeError, `expected a SqliteNativeError, got ${String(err)}`);
    return err;
  }
  assert.fail(`loading ${bindingPath} succeeded`);
}

describe('loading the SQLite native module', () => {
  it('loads the binding npm installed and opens a database with it', () => {
    const db = openSqlite(':memory:');
    assert.deepEqual(db.prepare('SELECT 1 AS one').get(), { one: 1 });
    db.close();
  });

  it('says that a missing build is missing and how to rebuild it', () => {
    const missing = join(dir, 'no-such-build', 'better_sqlite3.node');
    const err = loadError(missing);
    assert.equal(err.problem, 'missing');
    assert.match(err.message, /SQLite native module \(better-sqlite3\) is not built/);
    assert.ok(err.message.includes(missing), err.message);
    assert.ok(err.details.includes('rebuild it with: npm rebuild better-sqlite3'), err.details.join('\n'));
    assert.ok(
      err.details.some((d) => /compiles from source: .*C\+\+ compiler and Node\.js headers/.test(d)),
      err.details.join('\n'),
    );
  });

  it('says when the file is there but cannot be loaded', () => {
    const garbage = join(dir, 'garbage.node');
    writeFileSync(garbage, 'not a shared object');
    const err = loadError(garbage);
    assert.equal(err.problem, 'load-failed');
    assert.match(err.message, /could not be loaded: /);
    assert.ok(err.details.some((d) => d.startsWith('rebuild it with: npm rebuild better-sqlite3')));
  });

  it('recognises a build for another Node.js version', () => {
    // What Node throws for an addon compiled against another ABI (a real one needs a second Node to build).
    const thrown = Object.assign(
      new Error(
        "The module '/x/better_sqlite3.node'\nwas compiled against a different Node.js version using\n" +
          'NODE_MODULE_VERSION 127. This version of Node.js requires\nNODE_MODULE_VERSION 115. ' +
          'Please try re-compiling or re-installing\nthe module.',
      ),
      { code: 'ERR_DLOPEN_FAILED' },
    );
    const err = describeLoadFailure(thrown);
    assert.ok(err instanceof SqliteNativeError);
    assert.equal(err.problem, 'node-version');
    assert.match(
      err.message,
      /built for another Node\.js version \(NODE_MODULE_VERSION 127; Node\.js v[\d.]+ needs 115\)/,
    );
    assert.match(err.details[0]!, /^rebuild it with: npm rebuild better-sqlite3/);
    assert.equal(err.cause, thrown);
  });

  it('passes other errors through unchanged', () => {
    const other = new Error('something else');
    assert.equal(describeLoadFailure(other), other);
  });

  it('is reported by the CLI as a plain failure (exit 1), not as a bug', () => {
    const failure = describeFailure(loadError(join(dir, 'missing.node')));
    assert.equal(failure.exitCode, 1);
    assert.match(failure.lines[0]!, /^the SQLite native module/);
    assert.ok(!failure.lines.some((l) => /unexpected error|bug in ctl/.test(l)), failure.lines.join('\n'));
  });
});
