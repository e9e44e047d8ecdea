import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { describe, it } from 'node:test';
import { UsageError } from '../../console/errors.js';
import { testDeps } from '../testing/test-deps.js';
import { newPassword } from './new-password.js';

// The prompts never read a profile: any directory will do as the configuration directory.
const at = (password: string[]) => testDeps({ configDir: tmpdir(), tty: true, answers: { password } });

describe('the new password of a updb enrollment', () => {
  it('is asked twice at a terminal', async () => {
    const { deps, prompter } = at(['Secret-1', 'Secret-1']);
    assert.equal(await newPassword({}, deps), 'Secret-1');
    assert.deepEqual(prompter.asked, ['New password:', 'Repeat it:']);
  });

  it('is asked again when the two answers differ, with a warning', async () => {
    const { deps, io, prompter } = at(['Secret-1', 'Secret-2', 'Secret-3', 'Secret-3']);
    assert.equal(await newPassword({}, deps), 'Secret-3');
    assert.equal(prompter.asked.length, 4);
    assert.equal(io.stderrText(), 'warning: the two passwords differ: type them again\n');
  });

  it('gives up after three mismatches (exit 2)', async () => {
    const { deps } = at(['a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
    await assert.rejects(newPassword({}, deps), (err: unknown) => err instanceof UsageError && /differed 3 times/.test(err.message));
  });

  it('is the first line of stdin with --password-stdin, and refused when there is none', async () => {
    assert.equal(await newPassword({ passwordStdin: true }, testDeps({ configDir: tmpdir(), stdin: 'Secret-1\nmore\n' }).deps), 'Secret-1');
    await assert.rejects(newPassword({ passwordStdin: true }, testDeps({ configDir: tmpdir(), stdin: '' }).deps), UsageError);
  });
});
