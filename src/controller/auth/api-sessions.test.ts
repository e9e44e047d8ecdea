import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApiError } from '../../protocol/errors.js';
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

/** Counts the reads of sessions by token, to see when a resolve was answered from the cache. */
function countReads(store: Store): { count: number } {
  const repo = store.repo('api-session');
  const counter = { count: 0 };
  const findOne = repo.findOne.bind(repo);
  repo.findOne = (...args: Parameters<typeof findOne>) => {
    counter.count++;
    return findOne(...args);
  };
  return counter;
}

test('a resolved session is kept until a write could change it: not its own activity, nor new rows', async () => {
  const { store, sessions, token, identityId } = await setup();
  const reads = countReads(store);
  await sessions.resolve(token, at(MINUTE));
  await sessions.resolve(token, at(MINUTE + 1_000));
  assert.equal(reads.count, 1, 'the second request is answered from the cache');
  await sessions.resolve(token, at(2 * MINUTE)); // writes its activity: no change of what the session says
  await sessions.create({ identityId, authenticatorId: 'a1', ipAddress: '', configTypes: [], now: at(2 * MINUTE) });
  await store.repo('identity').insert({ name: 'bob', type: 'Default', isAdmin: false }, { now: t0.toISOString() });
  await sessions.resolve(token, at(2 * MINUTE + 1_000));
  assert.equal(reads.count, 1, 'activity and new rows keep it');
  await store.repo('identity').update(identityId, { isAdmin: true }, t0.toISOString());
  assert.equal((await sessions.resolve(token, at(2 * MINUTE + 2_000))).isAdmin, true, 'an identity change is seen at once');
  assert.equal(reads.count, 2);
});

test('a cached session stops working the moment it ends or its identity is disabled or deleted', async () => {
  const { store, sessions, token, id, identityId } = await setup();
  await sessions.resolve(token, at(MINUTE));
  await store.repo('identity').update(identityId, { disabledAt: at(MINUTE).toISOString(), disabledUntil: null }, t0.toISOString());
  await assert.rejects(sessions.resolve(token, at(MINUTE + 1)), unauthorized, 'disabled');
  await store.repo('identity').update(identityId, { disabledAt: null, disabledUntil: null }, t0.toISOString());
  await sessions.resolve(token, at(MINUTE + 2));
  await sessions.delete(id);
  await assert.rejects(sessions.resolve(token, at(MINUTE + 3)), unauthorized, 'logged out');
  const other = await sessions.create({ identityId, authenticatorId: 'a1', ipAddress: '', configTypes: [], now: at(MINUTE) });
  await sessions.resolve(other.token, at(MINUTE + 4));
  await store.tx(() => store.repo('identity').delete(identityId));
  await assert.rejects(sessions.resolve(other.token, at(MINUTE + 5)), unauthorized, 'identity deleted (its sessions cascade)');
});
