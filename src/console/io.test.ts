import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { spinnerAllowed } from './io.js';

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
