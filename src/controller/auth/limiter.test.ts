import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApiError } from '../../protocol/errors.js';
import { ConcurrencyLimiter } from './limiter.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

test('runs at most `concurrency` at once, queues up to `queue`, refuses the rest with 429', async () => {
  const limiter = new ConcurrencyLimiter(2, 1);
  const gates = [deferred(), deferred(), deferred()];
  let running = 0;
  let peak = 0;
  const job = (i: number) =>
    limiter.run(async () => {
      running++;
      peak = Math.max(peak, running);
      await gates[i].promise;
      running--;
      return i;
    });
  const first = [job(0), job(1), job(2)];
  await assert.rejects(job(0), (err: ApiError) => err.code === 'SERVER_TOO_MANY_REQUESTS' && err.status === 429);
  for (const g of gates) g.resolve();
  assert.deepEqual(await Promise.all(first), [0, 1, 2]);
  assert.equal(peak, 2);
});

test('a failing job frees its place', async () => {
  const limiter = new ConcurrencyLimiter(1, 0);
  await assert.rejects(
    limiter.run(async () => Promise.reject(new Error('boom'))),
    /boom/,
  );
  assert.equal(await limiter.run(async () => 'next'), 'next');
});
