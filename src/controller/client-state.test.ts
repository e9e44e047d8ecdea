import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openStoreForSuite, storesUnderTest } from '../../test/helpers/postgres.js';
import { ApiError } from '../protocol/errors.js';
import { DatabaseLoginThrottle } from './auth/database-throttle.js';
import { DEFAULT_LOGIN_THROTTLE } from './auth/throttle.js';
import { apiSessionPostureIn, ClientState, emptyPosture, POSTURE_ENTRIES_KEPT } from './client-state.js';
import type { Store } from './store/store.js';

describe('ClientState', () => {
  it('service update stamps: the start until touched, per identity, and one stamp for everyone', async () => {
    const start = new Date('2026-01-01T00:00:00Z');
    const s = new ClientState(start);
    assert.equal((await s.lastChangeAt('a')).getTime(), start.getTime());
    await s.touch(['a'], new Date('2026-01-01T00:01:00Z'));
    assert.equal((await s.lastChangeAt('a')).toISOString(), '2026-01-01T00:01:00.000Z');
    assert.equal((await s.lastChangeAt('b')).getTime(), start.getTime());
    await s.touch(['a'], new Date('2026-01-01T00:00:30Z'));
    assert.equal((await s.lastChangeAt('a')).toISOString(), '2026-01-01T00:01:00.000Z', 'never backwards');
    await s.touchEveryone(new Date('2026-01-01T00:02:00Z'));
    assert.equal((await s.lastChangeAt('a')).toISOString(), '2026-01-01T00:02:00.000Z');
    assert.equal((await s.lastChangeAt('b')).toISOString(), '2026-01-01T00:02:00.000Z');
    await s.forget('a');
    assert.equal((await s.lastChangeAt('a')).toISOString(), '2026-01-01T00:02:00.000Z');
  });

  it('budget: a burst per API session, regained over time; addresses get ten times as much', async () => {
    let now = 0;
    const s = new ClientState(new Date(0), { burst: 2, perSecond: 1 }, () => now);
    await s.spend({ apiSessionId: 'x' });
    await s.spend({ apiSessionId: 'x' });
    await assert.rejects(s.spend({ apiSessionId: 'x' }), refusedFor(1));
    await s.spend({ apiSessionId: 'y' });
    now = 1000;
    await s.spend({ apiSessionId: 'x' });
    for (let i = 0; i < 20; i++) await s.spend({ address: '10.0.0.1' });
    await assert.rejects(s.spend({ address: '10.0.0.1' }), ApiError);
  });
});

for (const kind of storesUnderTest()) {
  describe(`ClientState's budget shared through the database (${kind})`, () => {
    let store: Store;
    openStoreForSuite(kind, (opened) => (store = opened));

    /** A controller's client state whose budget is kept in the database, as index.ts wires it when shared. */
    function sharedController(now: () => number): ClientState {
      const throttle = new DatabaseLoginThrottle(store.loginAttempts, DEFAULT_LOGIN_THROTTLE, now);
      return new ClientState(new Date(0), { burst: 4, perSecond: 2 }, now, (k, options) =>
        throttle.bucketsFor(k, options, now),
      );
    }

    it('one burst for requests spread over two controllers, regained over time, refusals taking nothing', async () => {
      let now = 1_000_000;
      const [a, b] = [sharedController(() => now), sharedController(() => now)];
      await a.spend({ apiSessionId: 's' });
      await b.spend({ apiSessionId: 's' });
      await a.spend({ apiSessionId: 's' });
      const statements = store.statementsRun;
      await b.spend({ apiSessionId: 's' });
      assert.equal(store.statementsRun - statements, 1, 'a request within the budget costs one statement');
      await assert.rejects(a.spend({ apiSessionId: 's' }), refusedFor(1), 'the fifth, on either controller');
      await assert.rejects(b.spend({ apiSessionId: 's' }), refusedFor(1));
      await b.spend({ apiSessionId: 'other' });
      now += 500;
      await a.spend({ apiSessionId: 's' });
      await assert.rejects(b.spend({ apiSessionId: 's' }), ApiError, 'one regained in 500 ms, and taken');
      // Forty at once, half on each: every one is within ten times the burst, and all of them are counted.
      await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).spend({ address: 'x' })));
      const late = await Promise.allSettled([a.spend({ address: 'x' }), b.spend({ address: 'x' })]);
      assert.deepEqual(
        late.map((r) => r.status),
        ['rejected', 'rejected'],
        'none beyond ten times the burst',
      );
    });

    it('many at once on both controllers: exactly the burst accepted', async () => {
      const now = () => 2_000_000;
      const [a, b] = [sharedController(now), sharedController(now)];
      const results = await Promise.allSettled(
        Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).spend({ apiSessionId: 'race' })),
      );
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 4);
    });
  });
}

function refusedFor(seconds: number): (err: unknown) => boolean {
  return (err) =>
    err instanceof ApiError &&
    err.status === 429 &&
    err.code === 'RATE_LIMITED' &&
    (err as unknown as { retryAfterSeconds: number }).retryAfterSeconds === seconds;
}

describe('an identity posture', () => {
  it('keeps the latest API sessions it was told of, a session told of again counting as the latest', () => {
    const data = emptyPosture();
    apiSessionPostureIn(data, 's0').mfaPassedAt = new Date(0);
    for (let n = 1; n <= POSTURE_ENTRIES_KEPT; n++) {
      apiSessionPostureIn(data, `s${n}`);
      if (n === 10) apiSessionPostureIn(data, 's0');
    }
    assert.equal(data.apiSessions.size, POSTURE_ENTRIES_KEPT);
    assert.equal(data.apiSessions.has('s1'), false, 'the oldest went');
    assert.deepEqual(data.apiSessions.get('s0'), { mfaPassedAt: new Date(0) }, 'one set again is kept, as it was');
  });
});
