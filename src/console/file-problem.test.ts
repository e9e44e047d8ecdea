import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, it } from 'node:test';
import { fileProblem } from './file-problem.js';

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
