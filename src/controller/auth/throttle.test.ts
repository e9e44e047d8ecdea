import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../protocol/errors.js';
import { LoginThrottle, ThrottledError, TokenBuckets } from './throttle.js';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('TokenBuckets', () => {
  it('allows capacity takes, then refills at the rate', () => {
    const c = clock();
    const b = new TokenBuckets({ capacity: 3, refillPerSecond: 0.5, maxKeys: 10 }, c.now);
    for (let i = 0; i < 3; i++) {
      assert.equal(b.waitMs('k'), 0);
      b.take('k');
    }
    assert.equal(b.waitMs('k'), 2000);
    c.advance(1500);
    assert.equal(b.waitMs('k'), 500);
    c.advance(500);
    assert.equal(b.waitMs('k'), 0);
    assert.equal(b.waitMs('other'), 0, 'keys are independent');
  });

  it('forgets a bucket once it is full again and never tracks more than maxKeys', () => {
    const c = clock();
    const b = new TokenBuckets({ capacity: 2, refillPerSecond: 1, maxKeys: 100 }, c.now);
    for (let i = 0; i < 1000; i++) b.take(`k${i}`);
    assert.equal(b.size, 100);
    c.advance(2000);
    b.waitMs('k999');
    assert.equal(b.size, 99, 'a refilled bucket is dropped when touched');
  });

  it('evicts the least recently touched key first', () => {
    const b = new TokenBuckets({ capacity: 1, refillPerSecond: 0.001, maxKeys: 2 }, clock().now);
    b.take('a');
    b.take('b');
    b.take('a');
    b.take('c');
    assert.equal(b.waitMs('b'), 0, 'b was the oldest and went');
    assert.ok(b.waitMs('a') > 0 && b.waitMs('c') > 0);
  });
});

describe('LoginThrottle', () => {
  const options = {
    perAddress: { capacity: 4, refillPerSecond: 1, maxKeys: 100 },
    perUsername: { capacity: 2, refillPerSecond: 0.1, maxKeys: 100 },
    maxTrackedIdentities: 3,
  };

  it('refuses an address after its failures with 429 and Retry-After, and nobody else', () => {
    const c = clock();
    const t = new LoginThrottle(options, c.now);
    for (let i = 0; i < 4; i++) {
      t.check('198.51.100.1', `u${i}`);
      t.failed('198.51.100.1', `u${i}`);
    }
    assert.throws(
      () => t.check('198.51.100.1', 'someone-else'),
      (err: unknown) => err instanceof ThrottledError && err instanceof ApiError && err.status === 429 && err.retryAfterSeconds === 1,
    );
    t.check('198.51.100.2', 'someone-else');
    c.advance(1000);
    t.check('198.51.100.1', 'someone-else');
  });

  it('refuses a username guessed at from many addresses, whether or not it exists', () => {
    const c = clock();
    const t = new LoginThrottle(options, c.now);
    t.failed('a1', 'victim', 'id-1');
    t.failed('a2', 'victim', 'id-1');
    t.failed('a3', 'nobody');
    t.failed('a4', 'nobody');
    for (const name of ['victim', 'nobody']) {
      assert.throws(() => t.check('a9', name), (err: unknown) => err instanceof ThrottledError && err.retryAfterSeconds === 10);
    }
    t.check('a9', 'bystander');
  });

  it('counts consecutive failures per identity, reset by a success, bounded in identities', () => {
    const c = clock();
    const t = new LoginThrottle(options, c.now);
    t.failed('a', 'u', 'id-1');
    c.advance(5);
    t.failed('b', 'u', 'id-1');
    assert.deepEqual(t.failuresOf('id-1'), { consecutive: 2, lastAt: new Date(c.now()) });
    t.succeeded('id-1');
    assert.equal(t.failuresOf('id-1'), undefined);
    for (let i = 0; i < 10; i++) t.failed('a', 'u', `id-${i}`);
    assert.equal(t.trackedKeys.identities, 3);
    assert.equal(t.failuresOf('id-9')?.consecutive, 1);
  });
});
