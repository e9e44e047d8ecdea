import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { semverRangeError, semverRangeSatisfied } from './semver-range.js';

test('accepts the ranges OpenZiti accepts in OS checks', () => {
  for (const range of [
    '10.0.19041',
    '>=10.0.19041',
    '>= 10.0.19041',
    '>=13.0.0 <14.0.0',
    '1.2.3 || >=2.0.0',
    '11.x',
    '10.0.x',
    '!=1.2.3',
    '1.0.0-rc.1+build.5',
    '<=2.x',
  ]) {
    assert.equal(semverRangeError(range), undefined, range);
  }
});

test('refuses what OpenZiti refuses: partial versions, leading zeros, stray ||, empty, unknown comparators', () => {
  for (const range of [
    '13',
    '10.0',
    '',
    ' ',
    'v1.2.3',
    '01.2.3',
    '|| 1.2.3',
    '1.2.3 ||',
    '~1.2.3',
    'x',
    'Vista',
    '1.2.3-01',
    '1.2.3+',
    '1.0.0-x',
  ]) {
    assert.equal(typeof semverRangeError(range), 'string', range);
  }
});

describe('semverRangeSatisfied', () => {
  const cases: Array<[string, string, boolean]> = [
    ['>=10.0.0', '10.0.19041', true],
    ['>=10.0.0', '9.9.9', false],
    ['10.0.19041', '10.0.19041', true],
    ['10.0.x', '10.0.22000', true],
    ['10.0.x', '10.1.0', false],
    ['>=1.0.0 <2.0.0', '1.5.0', true],
    ['>=1.0.0 <2.0.0', '2.0.0', false],
    ['<1.0.0 || >=3.0.0', '3.1.0', true],
    ['<1.0.0 || >=3.0.0', '2.0.0', false],
    ['>=1.0.0', '1.0.0-beta', false],
    ['!=1.2.3', '1.2.4', true],
    ['>=1.0.0', 'not-a-version', false],
    ['>=1.0.0', '10.0', false],
  ];
  for (const [range, version, expected] of cases) {
    it(`${version} ${expected ? 'is' : 'is not'} in ${range}`, () =>
      assert.equal(semverRangeSatisfied(range, version), expected));
  }
});
