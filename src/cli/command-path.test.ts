import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTestIO } from '../client/testing/test-io.js';
import { EXIT } from '../console/errors.js';
import { run } from './main.js';

const exitOf = (argv: string[]) => run(argv, { env: {}, io: createTestIO() });

describe('unknown command words', () => {
  it('are usage errors (exit 2) in every form, --help included', async () => {
    for (const argv of [
      ['nosuch'],
      ['nosuch', '--help'],
      ['nosuch', '-h'],
      ['nosuch', 'list'],
      ['help', 'nosuch'],
      ['--profile', 'x', 'nosuch', '--help'],
      ['identity', 'bogus', '--help'],
    ]) {
      assert.equal(await exitOf(argv), EXIT.usage, argv.join(' '));
    }
  });

  it('suggest the nearest command for a typo, at the top level and below', async () => {
    const stderrOf = async (argv: string[]) => {
      const io = createTestIO();
      assert.equal(await run(argv, { env: {}, io }), EXIT.usage);
      return io.stderrText();
    };
    assert.match(await stderrOf(['identiy']), /^error: unknown command 'identiy'\n {2}did you mean 'ctl identity'\?\n/);
    assert.match(await stderrOf(['identity', 'lsit']), /^ {2}did you mean 'ctl identity list'\?$/m);
    assert.doesNotMatch(await stderrOf(['zzzzzz']), /did you mean/);
  });

  it('leave real commands, their options and their arguments alone', async () => {
    for (const argv of [
      ['--help'],
      ['identity', '--help'],
      ['--profile', 'x', 'identity', 'list', '--help'],
      ['-o', 'json', 'identity', 'ls', 'name = "x"', '-h'],
      ['help', 'filters'],
    ]) {
      assert.equal(await exitOf(argv), EXIT.ok, argv.join(' '));
    }
  });
});
