import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createProcessIO, spinnerAllowed } from './io.js';

describe('spinnerAllowed', () => {
  const sized = { isTTY: true, columns: 80 };
  it('draws on a sized terminal for a person', () => assert.equal(spinnerAllowed(sized, {}), true));
  it('never on a terminal that reports no size (script, docker run -t)', () => {
    assert.equal(spinnerAllowed({ isTTY: true, columns: 0 }, {}), false);
    assert.equal(spinnerAllowed({ isTTY: true }, {}), false);
  });
  it('never off a terminal, in CI or for machine output', () => {
    assert.equal(spinnerAllowed({ isTTY: false, columns: 80 }, {}), false);
    assert.equal(spinnerAllowed(sized, { CI: 'true' }), false);
    assert.equal(spinnerAllowed(sized, {}, true), false);
  });
});

describe('createProcessIO', () => {
  it('leaves process.stdin unread until a command reads its input (making the stream loads its kind of stream)', () => {
    const own = Object.getOwnPropertyDescriptor(process, 'stdin');
    assert.ok(own?.get, 'process.stdin is a getter');
    let reads = 0;
    Object.defineProperty(process, 'stdin', {
      ...own,
      get() {
        reads++;
        return own.get?.call(process);
      },
    });
    try {
      const io = createProcessIO({ env: {}, machineOutput: false, noColor: true, noInput: false });
      assert.equal(reads, 0);
      assert.equal(io.stdin, process.stdin);
      assert.equal(io.stdinIsTTY, Boolean(process.stdin.isTTY));
      assert.ok(reads > 0);
    } finally {
      Object.defineProperty(process, 'stdin', own);
    }
  });
});
