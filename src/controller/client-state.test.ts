import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../protocol/errors.js';
import { ClientState } from './client-state.js';

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

  it('budget: a burst per API session, regained over time; addresses get ten times as much', () => {
    let now = 0;
    const s = new ClientState(new Date(0), { burst: 2, perSecond: 1 }, () => now);
    s.spend({ apiSessionId: 'x' });
    s.spend({ apiSessionId: 'x' });
    assert.throws(
      () => s.spend({ apiSessionId: 'x' }),
      (err: unknown) =>
        err instanceof ApiError &&
        err.status === 429 &&
        err.code === 'RATE_LIMITED' &&
        (err as unknown as { retryAfterSeconds: number }).retryAfterSeconds === 1,
    );
    s.spend({ apiSessionId: 'y' });
    now = 1000;
    s.spend({ apiSessionId: 'x' });
    for (let i = 0; i < 20; i++) s.spend({ address: '10.0.0.1' });
    assert.throws(() => s.spend({ address: '10.0.0.1' }), ApiError);
  });
});
