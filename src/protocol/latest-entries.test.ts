import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setLatest } from './latest-entries.js';

test('setLatest keeps the most recently set keys, a key set again counting as new', () => {
  const map = new Map<string, number>();
  for (const [key, value] of [
    ['a', 1],
    ['b', 2],
    ['c', 3],
    ['a', 4],
    ['d', 5],
  ] as const)
    setLatest(map, key, value, 3);
  assert.deepEqual(
    [...map],
    [
      ['c', 3],
      ['a', 4],
      ['d', 5],
    ],
  );
  setLatest(map, 'e', 6, 1);
  assert.deepEqual([...map], [['e', 6]], 'a smaller bound lets every older one go');
});
