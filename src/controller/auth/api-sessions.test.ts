import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../protocol/errors.js';
import { Store } from '../store/store.js';
import { ApiSessions, hashToken } from './api-sessions.js';

const MINUTE = 60_000;
const t0 = new Date('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

async function setup() {
  const store = await Store.open({ sqlite: ':memory:' });
  const identityId = await store.repo('identity').insert({ name: 'alice', type: 'Default', isAdmin: false }, { now: t0.toISOString() });
  const sessions = new ApiSessions(store, 30 * MINUTE);
  const { id, token } = await sessions.create({ identityId, authenticatorId: 'a1', ipAddress: '127.0.0.1', configTypes: [], now: t0 });
  return { store, sessions, id, token, identityId };
}

const unauthorized = (err: ApiError) => err.code === 'UNAUTHORIZED' && err.status === 401;

test('a session resolves to its identity and stores only the hash of its token', async () => {
  const { store, sessions, token, identityId } = await setup();
  const principal = await sessions.resolve(token, at(MINUTE));
  assert.equal(principal.identityId, identityId);
  assert.equal(principal.identityName, 'alice');
  assert.equal(principal.expiresAt.getTime(), at(31 * MINUTE).getTime());
  const [stored] = await store.repo('api-session').findAll({});
  assert.equal(stored.tokenHash, hashToken(token));
  assert.equal(JSON.stringify(stored).includes(token), false);
});

test('a session idle past the timeout is refused and removed; activity keeps it alive', async () => {
  const { store, sessions, token } = await setup();
  // Activity every 20 minutes keeps the session past its first 30 minutes.
  await sessions.resolve(token, at(20 * MINUTE));
  await sessions.resolve(token, at(40 * MINUTE));
  await assert.rejects(sessions.resolve(token, at(71 * MINUTE)), unauthorized);
  assert.equal(await store.repo('api-session').count(), 0);
});

test('a disabled identity cannot use its session; unknown tokens are refused', async () => {
  const { store, sessions, token, identityId } = await setup();
  await store.repo('identity').update(identityId, { disabledAt: t0.toISOString(), disabledUntil: null }, t0.toISOString());
  await assert.rejects(sessions.resolve(token, at(MINUTE)), unauthorized);
  await assert.rejects(sessions.resolve('not-a-token', at(MINUTE)), unauthorized);
});

test('sweep removes idle sessions only', async () => {
  const { store, sessions, identityId } = await setup();
  const fresh = await sessions.create({ identityId, authenticatorId: 'a1', ipAddress: '', configTypes: [], now: at(25 * MINUTE) });
  assert.equal(await sessions.sweep(at(31 * MINUTE)), 1);
  assert.equal((await sessions.resolve(fresh.token, at(31 * MINUTE))).apiSessionId, fresh.id);
  assert.equal(await store.repo('api-session').count(), 1);
});
