import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LruCache } from './driver.js';

/** The same cache as plain data: entries from the least to the most recently used, scanned at every step. */
class ReferenceLru {
  readonly entries: { key: string; value: string }[] = [];
  readonly freed: string[] = [];
  constructor(
    private readonly capacity: number,
    private readonly maxWeight: number,
  ) {}

  get(key: string): string | undefined {
    const at = this.entries.findIndex((e) => e.key === key);
    if (at < 0) return undefined;
    const [entry] = this.entries.splice(at, 1);
    this.entries.push(entry);
    return entry.value;
  }

  set(key: string, value: string): void {
    const at = this.entries.findIndex((e) => e.key === key);
    if (at >= 0) this.entries.splice(at, 1);
    if (value.length > this.maxWeight) {
      this.freed.push(value);
      return;
    }
    this.entries.push({ key, value });
    while (this.entries.length > this.capacity || this.weight() > this.maxWeight) {
      this.freed.push(this.entries.shift()!.value);
    }
  }

  weight(): number {
    return this.entries.reduce((sum, e) => sum + e.value.length, 0);
  }
}

test('an LRU cache keeps, answers and frees exactly as least-recently-used order says, over random use', () => {
  // A fixed sequence (so a failure can be replayed), from the high bits of a linear congruential generator.
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((seed / 2 ** 31) * n);
  };
  for (const [capacity, maxWeight] of [
    [1, 100],
    [3, 100],
    [5, 12],
    [8, 20],
  ]) {
    const freed: string[] = [];
    const cache = new LruCache<string, string>(capacity, (v) => freed.push(v), {
      maxWeight,
      weigh: (_key, value) => value.length,
    });
    const reference = new ReferenceLru(capacity, maxWeight);
    for (let step = 0; step < 5000; step++) {
      const key = `k${random(12)}`;
      if (random(3) === 0) {
        const value = `${key}:${'v'.repeat(random(maxWeight === 100 ? 4 : 14))}`;
        cache.set(key, value);
        reference.set(key, value);
      } else assert.equal(cache.get(key), reference.get(key), `step ${step}: get ${key}`);
      assert.equal(cache.size, reference.entries.length, `step ${step}: size`);
      assert.equal(cache.totalWeight, reference.weight(), `step ${step}: weight`);
    }
    assert.deepEqual(freed, reference.freed);
    assert.ok(freed.length > 100, `entries were evicted: ${freed.length}`);
  }
});
