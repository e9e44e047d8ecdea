// The code cache of the CLI's common script (bin/cached-script.js): made after the first run in the user's cache
// directory, used as it is after, replaced when damaged, and never a reason for a command to fail.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { NOUNS } from '../../src/cli/nouns/summary.js';
import { CTL_BIN } from '../helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'ctl-code-cache-'));

/**
 * `ctl --version` with XDG_CACHE_HOME set to `cacheHome`, from the build `bin` is in: a line the common script
 * runs (help is served from the build's prebuilt files, without it) and that keeps the help and completion cache.
 */
function help(cacheHome: string, bin = CTL_BIN) {
  const result = spawnSync(process.execPath, [bin, '--version'], {
    env: { PATH: process.env.PATH, CTL_CONFIG_DIR: join(work, 'config'), XDG_CACHE_HOME: cacheHome },
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stderr, '');
  return result.stdout;
}

const cacheFiles = (home: string) => readdirSync(join(home, 'ctl')).map((name) => join(home, 'ctl', name));

describe('the code cache of the CLI', () => {
  after(() => rmSync(work, { recursive: true, force: true }));
  const unwritable = join(work, 'a-file');
  writeFileSync(unwritable, '');

  it('is written after the first run, private to the user, and then used as it is', () => {
    const home = join(work, 'first');
    const expected = help(unwritable);
    assert.equal(help(home), expected);
    const [file, ...others] = cacheFiles(home);
    assert.deepEqual(others, []);
    assert.equal(statSync(join(home, 'ctl')).mode & 0o777, 0o700);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const made = readFileSync(file);
    assert.ok(made.length > 0);
    const { mtimeMs } = statSync(file);
    assert.equal(help(home), expected);
    assert.equal(statSync(file).mtimeMs, mtimeMs, 'an accepted cache is not written again');
    assert.deepEqual(readFileSync(file), made);
  });

  it('replaces a damaged cache, and a stale one of another build, without a word', () => {
    const home = join(work, 'damaged');
    const expected = help(home);
    const [file] = cacheFiles(home);
    const stale = file.replace(/-[0-9a-f]{16}-/, '-0123456789abcdef-');
    writeFileSync(stale, 'from an older build');
    writeFileSync(file, 'not a code cache');
    assert.equal(help(home), expected);
    assert.deepEqual(cacheFiles(home), [file]);
    const remade = readFileSync(file);
    assert.notDeepEqual(remade, Buffer.from('not a code cache'));
    assert.equal(help(home), expected);
    assert.deepEqual(readFileSync(file), remade, 'the cache made again is accepted');
    // Cut short (V8 checks the length it was written with): rejected and made whole again.
    writeFileSync(file, remade.subarray(0, remade.length >> 1));
    assert.equal(help(home), expected);
    assert.ok(readFileSync(file).length > remade.length >> 1, 'made again whole');
  });

  it("is kept apart for help and for a noun's commands, which compile different code", () => {
    const home = join(work, 'kinds');
    help(home);
    const [helpCache] = cacheFiles(home);
    const { mtimeMs } = statSync(helpCache);
    // Nothing listens on port 9: the command fails after running what a list runs, which is all this needs.
    const list = spawnSync(process.execPath, [CTL_BIN, 'identity', 'list'], {
      env: { PATH: process.env.PATH, XDG_CACHE_HOME: home, CTL_CONTROLLER: 'https://127.0.0.1:9', CTL_TOKEN: 'x' },
      encoding: 'utf8',
    });
    assert.equal(list.status, 1, list.stderr);
    const [listCache, ...others] = cacheFiles(home).filter((file) => file !== helpCache);
    assert.deepEqual(others, []);
    assert.match(basename(listCache), /^cli-noun-identity-/, "the noun's commands keep a cache of their own");
    assert.equal(statSync(helpCache).mtimeMs, mtimeMs, 'the list left the help cache alone');
  });

  it("knows every noun's words from the script's first line, to pick the noun's cache by", () => {
    const script = readFileSync(join(dirname(CTL_BIN), '..', 'dist', 'cli.cjs'), 'utf8');
    const firstLine = script.slice(0, script.indexOf('\n'));
    const { nouns } = JSON.parse(firstLine.slice(firstLine.indexOf('{'))) as { nouns: unknown[] };
    assert.deepEqual(
      nouns,
      NOUNS.flatMap((noun) => [noun.noun, ...noun.aliases]),
    );
  });

  it('is kept for each installation of ctl', () => {
    const home = join(work, 'two');
    const other = join(work, 'other-installation');
    const installed = join(dirname(CTL_BIN), '..');
    for (const part of ['bin', 'dist', 'package.json']) {
      cpSync(join(installed, part), join(other, part), { recursive: true });
    }
    help(home);
    help(home, join(other, 'bin', 'ctl.js'));
    const files = cacheFiles(home);
    assert.equal(files.length, 2);
    const [first, second] = files.map((file) => statSync(file).mtimeMs);
    help(home);
    help(home, join(other, 'bin', 'ctl.js'));
    assert.deepEqual(
      files.map((file) => statSync(file).mtimeMs),
      [first, second],
      'neither replaced the other',
    );
  });

  it('runs uncached where the cache directory cannot be made', () => {
    assert.equal(help(unwritable), help(join(work, 'fine')));
    assert.equal(readFileSync(unwritable, 'utf8'), '');
  });
});
