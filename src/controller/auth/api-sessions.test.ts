import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { createTestDatabase, PG_URL_VARIABLE, type TestDatabase } from '../../../test/helpers/postgres.js';
import type { ApiError } from '../../protocol/errors.js';
import { CONTROLLER_LOCK } from '../store/postgres-driver.js';
import { Store } from '../store/store.js';
import { ApiSessions, hashToken } from './api-sessions.js';

const MINUTE = 60_000;
const t0 = new Date('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

async function setup() {
  const store = await Store.open({ sqlite: ':memory:' });
  const identityId = await store
    .repo('identity')
    .insert({ name: 'alice', type: 'Default', isAdmin: false }, { now: t0.toISOString() });
  const sessions = new ApiSessions(store, 30 * MINUTE);
  const { id, token } = await sessions.create({
    identityId,
    authenticatorId: 'a1',
    ipAddress: '127.0.0.1',
    configTypes: [],
    now: t0,
  });
  return { store, sessions, id, token, identityId };
}

const pgSkip = process.env[PG_URL_VARIABLE] ? false : `${PG_URL_VARIABLE} is not set`;

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
  await store
    .repo('identity')
    .update(identityId, { disabledAt: t0.toISOString(), disabledUntil: null }, t0.toISOString());
  await assert.rejects(sessions.resolve(token, at(MINUTE)), unauthorized);
  await assert.rejects(sessions.resolve('not-a-token', at(MINUTE)), unauthorized);
});

test('sweep removes idle sessions only', async () => {
  const { store, sessions, identityId } = await setup();
  const fresh = await sessions.create({
    identityId,
    authenticatorId: 'a1',
    ipAddress: '',
    configTypes: [],
    now: at(25 * MINUTE),
  });
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
  await sessions.resolve(token, at(2 * MINUTE)); // notes its activity: no change of what the session says
  await sessions.create({ identityId, authenticatorId: 'a1', ipAddress: '', configTypes: [], now: at(2 * MINUTE) });
  await store.repo('identity').insert({ name: 'bob', type: 'Default', isAdmin: false }, { now: t0.toISOString() });
  await sessions.resolve(token, at(2 * MINUTE + 1_000));
  assert.equal(reads.count, 1, 'activity and new rows keep it');
  await store.repo('identity').update(identityId, { isAdmin: true }, t0.toISOString());
  assert.equal(
    (await sessions.resolve(token, at(2 * MINUTE + 2_000))).isAdmin,
    true,
    'an identity change is seen at once',
  );
  assert.equal(reads.count, 2);
});

test('a cached session stops working the moment it ends or its identity is disabled or deleted', async () => {
  const { store, sessions, token, id, identityId } = await setup();
  await sessions.resolve(token, at(MINUTE));
  await store
    .repo('identity')
    .update(identityId, { disabledAt: at(MINUTE).toISOString(), disabledUntil: null }, t0.toISOString());
  await assert.rejects(sessions.resolve(token, at(MINUTE + 1)), unauthorized, 'disabled');
  await store.repo('identity').update(identityId, { disabledAt: null, disabledUntil: null }, t0.toISOString());
  await sessions.resolve(token, at(MINUTE + 2));
  await sessions.delete(id);
  await assert.rejects(sessions.resolve(token, at(MINUTE + 3)), unauthorized, 'logged out');
  const other = await sessions.create({
    identityId,
    authenticatorId: 'a1',
    ipAddress: '',
    configTypes: [],
    now: at(MINUTE),
  });
  await sessions.resolve(other.token, at(MINUTE + 4));
  await store.tx(() => store.repo('identity').delete(identityId));
  await assert.rejects(
    sessions.resolve(other.token, at(MINUTE + 5)),
    unauthorized,
    'identity deleted (its sessions cascade)',
  );
});

/** Three sessions of one identity, each resolved once (read, and kept). */
async function threeResolved(sessions: ApiSessions, identityId: string) {
  const made = [];
  for (let i = 0; i < 3; i++) {
    made.push(await sessions.create({ identityId, authenticatorId: 'a1', ipAddress: '', configTypes: [], now: t0 }));
  }
  for (const { token } of made) await sessions.resolve(token, at(1_000));
  return made;
}

/** Each session's lastActivityAt as stored, by id. */
async function storedActivity(store: Store): Promise<Map<string, unknown>> {
  const rows = await store.repo('api-session').findAll({}, { columns: ['lastActivityAt'] });
  return new Map(rows.map((row) => [row.id, row.lastActivityAt]));
}

/** A request writes nothing for its session's activity; one statement later writes every session's. */
async function activityInOneStatement(store: Store, sessions: ApiSessions, identityId: string): Promise<void> {
  const made = await threeResolved(sessions, identityId);
  const before = store.statementsRun;
  for (const { token } of made) await sessions.resolve(token, at(MINUTE));
  assert.equal(store.statementsRun - before, 0, 'no statement in the requests');
  await sessions.flushActivity();
  assert.equal(store.statementsRun - before, 1, 'one statement for the three sessions');
  const stored = await storedActivity(store);
  for (const { id } of made) assert.equal(stored.get(id), at(MINUTE).toISOString());
}

test("a session's activity is written later, for every session seen, in one statement", async () => {
  const { store, sessions, identityId } = await setup();
  await activityInOneStatement(store, sessions, identityId);
});

test('activity not yet written still counts: after the session is read again, and before the sweep', async () => {
  const { store, sessions, token, identityId } = await setup();
  await sessions.resolve(token, at(29 * MINUTE));
  // A change of the identity makes the kept session stale: it is read again, with the activity of 29 minutes.
  await store.repo('identity').update(identityId, { name: 'alice2' }, t0.toISOString());
  await sessions.resolve(token, at(50 * MINUTE));
  // The sweep writes this process's activity first: 50 minutes is not idle at 75.
  assert.equal(await sessions.sweep(at(75 * MINUTE)), 0);
  assert.equal(await store.repo('api-session').count(), 1);
});

test('a time written later by another controller is kept: activity only moves forward', async () => {
  const { store, sessions, id, token } = await setup();
  await sessions.resolve(token, at(MINUTE));
  const later = at(2 * MINUTE).toISOString();
  await store.sessionActivity.write(new Map([[id, later]]));
  await sessions.flushActivity();
  assert.equal((await storedActivity(store)).get(id), later);
});

const onPostgres = { skip: pgSkip, timeout: 30_000 };

describe('the resolved-session cache on PostgreSQL, where reads do not wait for open transactions', onPostgres, () => {
  let db: TestDatabase;
  let store: Store;
  let sessions: ApiSessions;
  let identityId: string;
  before(async () => {
    db = await createTestDatabase({ migrated: true });
    store = await Store.open({ postgres: db.url });
    const alice = { name: 'alice', type: 'Default', isAdmin: false };
    identityId = await store.repo('identity').insert(alice, { now: t0.toISOString() });
    sessions = new ApiSessions(store, 30 * MINUTE);
  });
  after(async () => {
    await store.close();
    await db.drop();
  });
  const login = () => sessions.create({ identityId, authenticatorId: 'a1', ipAddress: '', configTypes: [], now: t0 });

  it('answers a second request from the cache', async () => {
    const { token } = await login();
    const reads = countReads(store);
    await sessions.resolve(token, at(MINUTE));
    await sessions.resolve(token, at(MINUTE + 1_000));
    assert.equal(reads.count, 1);
  });

  it('writes the activity of every session seen in one statement', () =>
    activityInOneStatement(store, sessions, identityId));

  it('does not keep past its commit what was read while a logout was written but not committed', async () => {
    const { id, token } = await login();
    let deleted!: () => void;
    const written = new Promise<void>((resolve) => (deleted = resolve));
    // Begun outside the transaction (another connection), once the delete is written: the session is still there.
    const outside = (async () => {
      await written;
      return sessions.resolve(token, at(1_000));
    })();
    await store.tx(async () => {
      await sessions.delete(id);
      deleted();
      assert.equal((await outside).apiSessionId, id, 'read before the commit');
    });
    await assert.rejects(sessions.resolve(token, at(2_000)), unauthorized, 'logged out once committed');
  });

  it('reads again what it kept once another controller may have written (the database lock was lost)', async () => {
    const { token } = await login();
    await sessions.resolve(token, at(MINUTE));
    const reads = countReads(store);
    const epoch = store.soleWriterEpoch;
    const dba = new pg.Client({ connectionString: db.url });
    await dba.connect();
    try {
      await dba.query(
        "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = $1 " +
          'AND database = (SELECT oid FROM pg_database WHERE datname = current_database())',
        [CONTROLLER_LOCK],
      );
    } finally {
      await dba.end();
    }
    // The lock is taken again within a second or two; meanwhile nothing is kept.
    for (const start = Date.now(); store.soleWriterEpoch === epoch || store.soleWriterEpoch === undefined; ) {
      assert.ok(Date.now() - start < 10_000, `the lock is taken again (epoch ${store.soleWriterEpoch})`);
      await sleep(20);
    }
    await sessions.resolve(token, at(MINUTE + 1));
    assert.equal(reads.count, 1, 'read again: another controller could have ended it meanwhile');
  });
});
