import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../protocol/errors.js';
import { Store } from '../store/store.js';
import { openDatabase } from '../store/db.js';
import { ApiSessions, hashToken } from './api-sessions.js';

const MINUTE = 60_000;
const t0 = new Date('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

function setup() {
  const store = new Store(openDatabase(':memory:'));
  const identityId = store.repo('identity').insert({ name: 'alice', type: 'Default', isAdmin: false }, { now: t0.toISOString() });
  const sessions = new ApiSessions(store, 30 * MINUTE);
  const { id, token } = sessions.create({ identityId, authenticatorId: 'a1', ipAddress: '127.0.0.1', configTypes: [], now: t0 });
  return { store, sessions, id, token, identityId };
}

const unauthorized = (err: ApiError) => err.code === 'UNAUTHORIZED' && err.status === 401;

test('a session resolves to its identity and stores only the hash of its token', () => {
  const { store, sessions, token, identityId } = setup();
  const principal = sessions.resolve(token, at(MINUTE));
  assert.equal(principal.identityId, identityId);
  assert.equal(principal.identityName, 'alice');
  assert.equal(principal.expiresAt.getTime(), at(31 * MINUTE).getTime());
  const stored = store.db.prepare('SELECT "tokenHash" FROM api_sessions').get() as { tokenHash: string };
  assert.equal(stored.tokenHash, hashToken(token));
  assert.equal(JSON.stringify(store.db.prepare('SELECT * FROM api_sessions').all()).includes(token), false);
});

test('a session idle past the timeout is refused and removed; activity keeps it alive', () => {
  const { store, sessions, token } = setup();
  // Activity every 20 minutes keeps the session past its first 30 minutes.
  sessions.resolve(token, at(20 * MINUTE));
  sessions.resolve(token, at(40 * MINUTE));
  assert.throws(() => sessions.resolve(token, at(71 * MINUTE)), unauthorized);
  assert.equal((store.db.prepare('SELECT count(*) AS n FROM api_sessions').get() as { n: number }).n, 0);
});

test('a disabled identity cannot use its session; unknown tokens are refused', () => {
  const { store, sessions, token, identityId } = setup();
  store.db.prepare(`UPDATE identities SET "disabledAt" = ?, "disabledUntil" = NULL WHERE "id" = ?`).run(t0.toISOString(), identityId);
  assert.throws(() => sessions.resolve(token, at(MINUTE)), unauthorized);
  assert.throws(() => sessions.resolve('not-a-token', at(MINUTE)), unauthorized);
});

test('sweep removes idle sessions only', () => {
  const { store, sessions, identityId } = setup();
  const fresh = sessions.create({ identityId, authenticatorId: 'a1', ipAddress: '', configTypes: [], now: at(25 * MINUTE) });
  assert.equal(sessions.sweep(at(31 * MINUTE)), 1);
  assert.equal(sessions.resolve(fresh.token, at(31 * MINUTE)).apiSessionId, fresh.id);
  assert.equal((store.db.prepare('SELECT count(*) AS n FROM api_sessions').get() as { n: number }).n, 1);
});
