import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, it } from 'node:test';
import { UsageError } from './errors.js';
import { fileProblem, readNamedFile } from './file-problem.js';

const thrown = (f: () => unknown): unknown => {
  try {
    f();
  } catch (err) {
    return err;
  }
  assert.fail('nothing was thrown');
};

describe('fileProblem', () => {
  it('says in words why a file could not be read, without repeating the call and the path', () => {
    assert.equal(fileProblem(thrown(() => readFileSync('/nonexistent/ca.pem'))), 'no such file or directory');
    assert.equal(fileProblem(thrown(() => readFileSync(tmpdir()))), 'it is a directory');
  });

  it('keeps the message of any other error', () => {
    assert.equal(fileProblem(thrown(() => JSON.parse('{'))), (thrown(() => JSON.parse('{')) as Error).message);
  });
});

describe('readNamedFile', () => {
  it('reads a file, and refuses one it cannot read as a usage error naming the flag and the file', async () => {
    assert.match(await readNamedFile(new URL(import.meta.url).pathname, '--cert'), /readNamedFile/);
    for (const [flag, message] of [
      ['--cert', 'cannot read --cert /nonexistent/ca.pem: no such file or directory'],
      [undefined, 'cannot read /nonexistent/ca.pem: no such file or directory'],
    ] as const) {
      await assert.rejects(readNamedFile('/nonexistent/ca.pem', flag), (err: unknown) => {
        assert.ok(err instanceof UsageError);
        assert.equal(err.message, message);
        return true;
      });
    }
  });
});
