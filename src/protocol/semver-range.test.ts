import assert from 'node:assert/strict';
import { test } from 'node:test';
import { semverRangeError } from './semver-range.js';

test('accepts the ranges OpenZiti accepts in OS checks', () => {
  for (const range of ['10.0.19041', '>=10.0.19041', '>= 10.0.19041', '>=13.0.0 <14.0.0', '1.2.3 || >=2.0.0', '11.x', '10.0.x', '!=1.2.3', '1.0.0-rc.1+build.5', '<=2.x']) {
    assert.equal(semverRangeError(range), undefined, range);
  }
});

test('refuses what OpenZiti refuses: partial versions, leading zeros, stray ||, empty, unknown comparators', () => {
  for (const range of ['13', '10.0', '', ' ', 'v1.2.3', '01.2.3', '|| 1.2.3', '1.2.3 ||', '~1.2.3', 'x', 'Vista', '1.2.3-01', '1.2.3+', '1.0.0-x']) {
    assert.equal(typeof semverRangeError(range), 'string', range);
  }
});
