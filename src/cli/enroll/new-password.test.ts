import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../console/errors.js';
import { testDeps } from '../testing/test-deps.js';
import { newPassword } from './new-password.js';

const at = (password: string[]) => testDeps({ tty: true, answers: { password } });

describe('the new password of a updb enrollment', () => {
  it('is asked twice at a terminal', async () => {
    const deps = at(['Secret-1', 'Secret-1']);
    const { prompts } = deps;
    assert.equal(await newPassword({}, deps), 'Secret-1');
    assert.deepEqual(prompts, ['New password:', 'Repeat it:']);
  });

  it('is asked again when the two answers differ, with a warning', async () => {
    const deps = at(['Secret-1', 'Secret-2', 'Secret-3', 'Secret-3']);
    const { io, prompts } = deps;
    assert.equal(await newPassword({}, deps), 'Secret-3');
    assert.equal(prompts.length, 4);
    assert.equal(io.stderrText(), 'warning: the two passwords differ: type them again\n');
  });

  it('gives up after three mismatches (exit 2)', async () => {
    const deps = at(['a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
    await assert.rejects(
      newPassword({}, deps),
      (err: unknown) => err instanceof UsageError && /differed 3 times/.test(err.message),
    );
  });

  it('is the first line of stdin with --password-stdin, and refused when there is none', async () => {
    assert.equal(await newPassword({ passwordStdin: true }, testDeps({ stdin: 'Secret-1\nmore\n' })), 'Secret-1');
    await assert.rejects(newPassword({ passwordStdin: true }, testDeps({ stdin: '' })), UsageError);
  });
});
