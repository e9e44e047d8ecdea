import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openStoreForSuite, storesUnderTest } from '../../../test/helpers/postgres.js';
import type { Store } from '../store/store.js';
import { ApiError } from '../../protocol/errors.js';
import { DatabaseLoginThrottle } from './database-throttle.js';
import { LoginThrottle, type LoginThrottling, ThrottledError, TokenBuckets } from './throttle.js';

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

const options = {
  perAddress: { capacity: 4, refillPerSecond: 1, maxKeys: 100 },
  perUsername: { capacity: 2, refillPerSecond: 0.1, maxKeys: 100 },
  maxTrackedIdentities: 3,
};

/** The same rules whether failures are counted in memory (one controller) or in the database (several). */
function throttleRules(name: string, make: (now: () => number) => Promise<LoginThrottling>) {
  describe(name, () => {
    it('refuses an address after its failures with 429 and Retry-After, and nobody else', async () => {
      const c = clock();
      const t = await make(c.now);
      for (let i = 0; i < 4; i++) {
        await t.check('198.51.100.1', `u${i}`);
        await t.failed('198.51.100.1', `u${i}`);
      }
      await assert.rejects(
        t.check('198.51.100.1', 'someone-else'),
        (err: unknown) =>
          err instanceof ThrottledError && err instanceof ApiError && err.status === 429 && err.retryAfterSeconds === 1,
      );
      await t.check('198.51.100.2', 'someone-else');
      c.advance(1000);
      await t.check('198.51.100.1', 'someone-else');
    });

    it('refuses a username guessed at from many addresses, whether or not it exists', async () => {
      const c = clock();
      const t = await make(c.now);
      await t.failed('a1', 'victim', 'id-1');
      await t.failed('a2', 'victim', 'id-1');
      await t.failed('a3', 'nobody');
      await t.failed('a4', 'nobody');
      for (const name of ['victim', 'nobody']) {
        const tenSeconds = (err: unknown) => err instanceof ThrottledError && err.retryAfterSeconds === 10;
        await assert.rejects(t.check('a9', name), tenSeconds);
      }
      await t.check('a9', 'bystander');
    });

    it('counts consecutive failures per identity, reset by a success', async () => {
      const c = clock();
      const t = await make(c.now);
      await t.failed('a', 'u', 'id-1');
      c.advance(5);
      await t.failed('b', 'u', 'id-1');
      assert.deepEqual(await t.failuresOf('id-1'), { consecutive: 2, lastAt: new Date(c.now()) });
      await t.succeeded('id-1');
      assert.equal(await t.failuresOf('id-1'), undefined);
    });
  });
}

throttleRules('LoginThrottle', async (now) => new LoginThrottle(options, now));

describe('LoginThrottle in memory', () => {
  it('is bounded in the identities it counts', async () => {
    const t = new LoginThrottle(options, clock().now);
    for (let i = 0; i < 10; i++) await t.failed('a', 'u', `id-${i}`);
    assert.equal(t.trackedKeys.identities, 3);
    assert.equal((await t.failuresOf('id-9'))?.consecutive, 1);
  });
});

for (const kind of storesUnderTest()) {
  describe(`DatabaseLoginThrottle (${kind})`, () => {
    let store: Store;
    openStoreForSuite(kind, (opened) => (store = opened));
    // Each test starts from an empty table: the rows of the test before are cleared first.
    throttleRules('rules', async (now) => {
      await store.loginAttempts.forgetIdle('', Number.MAX_SAFE_INTEGER);
      return new DatabaseLoginThrottle(store.loginAttempts, options, now);
    });

    it("forgets buckets once they are full again, never identities' counts", async () => {
      const c = clock();
      const t = new DatabaseLoginThrottle(store.loginAttempts, options, c.now);
      await t.failed('a', 'u', 'id-1');
      c.advance(19_000);
      await t.forgetRefilled();
      assert.equal((await store.loginAttempts.read(['address:a', 'username:u'])).size, 1, 'the address is full again');
      c.advance(2_000);
      await t.forgetRefilled();
      assert.equal((await store.loginAttempts.read(['address:a', 'username:u'])).size, 0);
      assert.equal((await t.failuresOf('id-1'))?.consecutive, 1);
    });

    it('keeps the buckets of other attempts in the database too, seen by another throttle on it', async () => {
      const c = clock();
      const mfa = { capacity: 2, refillPerSecond: 0.5, maxKeys: 10 };
      const t = new DatabaseLoginThrottle(store.loginAttempts, options, c.now);
      const here = t.bucketsFor('mfa', mfa, c.now);
      const there = new DatabaseLoginThrottle(store.loginAttempts, options, c.now).bucketsFor('mfa', mfa, c.now);
      await here.take('id-1');
      await there.take('id-1');
      assert.equal(await here.waitMs('id-1'), 2000, 'two taken, one here and one there: a token in 2 s');
      assert.equal(await there.waitMs('id-2'), 0);
      c.advance(4001);
      await t.forgetRefilled();
      assert.equal((await store.loginAttempts.read(['mfa:id-1'])).size, 0, 'full again (4 s), forgotten');
    });
  });
}
