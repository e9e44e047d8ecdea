import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseMinutes } from './duration.js';

describe('parseMinutes', () => {
  it('reads days, hours and minutes', () => {
    assert.equal(parseMinutes('30m'), 30);
    assert.equal(parseMinutes('2h'), 120);
    assert.equal(parseMinutes('1d'), 1440);
    assert.equal(parseMinutes('1d12h30m'), 2190);
  });

  it('rejects anything else, and zero', () => {
    for (const bad of ['', '30', '2x', 'h', '0m', '1m2d', '-5m'])
      assert.throws(() => parseMinutes(bad), /duration|at least/, bad);
  });
});
