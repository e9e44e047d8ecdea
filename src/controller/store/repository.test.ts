import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_ALL_ROWS, UNLIMITED_REPORTED } from '../../protocol/paging.js';
import { LruCache, STATEMENT_CACHE_SIZE, STATEMENT_CACHE_SQL_CHARS } from './driver.js';
import type { SqliteDriver } from './sqlite-driver.js';
import { Store } from './store.js';

const now = () => new Date().toISOString();

test('the statement cache stays bounded whatever filters clients send', async () => {
  const store = await Store.open({ sqlite: ':memory:' });
  const repo = store.repo('identity');
  // Each distinct filter shape is a distinct SQL text; before the LRU every one stayed prepared for ever.
  for (let i = 0; i < STATEMENT_CACHE_SIZE + 200; i++)
    await repo.list({
      filter:
        `name = "a" or ${'name = "b" or '.repeat(i % 50)}isAdmin = ${i % 2 === 0} and createdAt > ` +
        `datetime(2026-01-0${(i % 9) + 1}T00:00:00Z) ${'and isAdmin = true '.repeat(Math.floor(i / 50))}`,
    });
  const driver = (store as unknown as { driver: SqliteDriver }).driver;
  assert.ok(driver.cachedStatements <= STATEMENT_CACHE_SIZE, `${driver.cachedStatements} statements cached`);
  await store.close();
});

test('a filter shape is cached on its second use only, and the cache holds a bounded amount of SQL', async () => {
  const store = await Store.open({ sqlite: ':memory:' });
  const repo = store.repo('identity');
  const driver = (store as unknown as { driver: SqliteDriver }).driver;
  // Long, structurally distinct filters (each its own SQL): one-off shapes are not kept.
  const condition = (i: number, bit: number) => `name ${(i >> bit) & 1 ? '!=' : '='} "s"`;
  const shape = (i: number) => Array.from({ length: 12 }, (_, bit) => condition(i, bit)).join(' and ');
  const long = (i: number) => `${'name contains "x" or '.repeat(100)}${shape(i)}`;
  const before = driver.cachedStatements;
  for (let i = 0; i < 50; i++) await repo.list({ filter: long(i) });
  assert.equal(driver.cachedStatements, before, 'one-off shapes are not cached');
  for (let round = 0; round < 2; round++) for (let i = 0; i < 200; i++) await repo.list({ filter: long(i) });
  assert.ok(driver.cachedStatements > before, 'repeated shapes are cached');
  assert.ok(driver.cachedSqlChars <= STATEMENT_CACHE_SQL_CHARS, `${driver.cachedSqlChars} characters of SQL cached`);
  await store.close();
});

test('lookups of other shapes (comparisons, columns, limits) each read by their own statement text', async () => {
  const store = await Store.open({ sqlite: ':memory:' });
  const repo = store.repo('identity');
  const at = now();
  await repo.insert({ name: 'a', type: 'Default', isAdmin: true }, { id: 'ida', now: at });
  await repo.insert({ name: 'b', type: 'Default', isAdmin: false, externalId: 'x' }, { id: 'idb', now: at });
  await repo.insert({ name: 'c', type: 'Default', isAdmin: false, externalId: 'y' }, { id: 'idc', now: at });
  // Each twice, so that the second read of a shape uses the text the first one made.
  for (let round = 0; round < 2; round++) {
    const ids = async (...args: Parameters<typeof repo.findAll>) => (await repo.findAll(...args)).map((r) => r.id);
    assert.deepEqual(await ids({ externalId: null }), ['ida']);
    assert.deepEqual(await ids({ externalId: ['x'] }), ['idb']);
    assert.deepEqual(await ids({ externalId: ['x', 'y'] }), ['idb', 'idc']);
    assert.deepEqual(await ids({ externalId: { ne: 'x' } }), ['ida', 'idc']);
    assert.deepEqual(await ids({ name: { lt: 'b' } }), ['ida']);
    assert.deepEqual(await ids({ externalId: ['x', 'y'] }, { limit: 1 }), ['idb']);
    assert.deepEqual(await ids({ isAdmin: false, externalId: ['y'] }), ['idc']);
    const [b] = await repo.findAll({ id: ['idb'] }, { columns: ['name'] });
    assert.equal(b.name, 'b');
    assert.equal('externalId' in b, false, 'only the columns asked for');
    assert.equal((await repo.findAll({ id: ['idb'] }))[0].externalId, 'x');
    assert.deepEqual(await repo.distinct('externalId', { isAdmin: false }).then((v) => v.sort()), ['x', 'y']);
    assert.deepEqual(await repo.distinct('name', { isAdmin: true }), ['a']);
  }
  await store.close();
});

test('an LRU cache with weights keeps at most its total weight, and never an entry heavier than that', () => {
  const freed: string[] = [];
  const cache = new LruCache<string, string>(100, (v) => freed.push(v), { maxWeight: 10, weigh: (_k, v) => v.length });
  cache.set('a', 'aaaa');
  cache.set('b', 'bbbb');
  cache.set('c', 'cccc');
  assert.deepEqual(freed, ['aaaa']);
  assert.equal(cache.totalWeight, 8);
  cache.set('big', 'x'.repeat(11));
  assert.equal(cache.get('big'), undefined);
  assert.deepEqual(freed, ['aaaa', 'x'.repeat(11)]);
  cache.set('b', 'b');
  assert.equal(cache.totalWeight, 5, 'replacing an entry replaces its weight');
});

test('an LRU cache forgets the least recently used entry and frees it', () => {
  const freed: string[] = [];
  const cache = new LruCache<string, string>(2, (v) => freed.push(v));
  cache.set('a', 'A');
  cache.set('b', 'B');
  cache.get('a');
  cache.set('c', 'C');
  assert.deepEqual(freed, ['B']);
  assert.equal(cache.get('a'), 'A');
  assert.equal(cache.get('b'), undefined);
});

test('a list asking for everything returns at most MAX_ALL_ROWS rows, and says so in its limit', async () => {
  const store = await Store.open({ sqlite: ':memory:' });
  const repo = store.repo('identity-type');
  const all = await repo.list({ limit: -1 });
  assert.equal(all.limit, UNLIMITED_REPORTED, 'a page that holds everything reports "all"');
  await store.tx(async () => {
    for (let i = 0; i < MAX_ALL_ROWS + 5; i++) await repo.insert({ name: `type-${i}` }, { now: now() });
  });
  const capped = await repo.list({ filter: 'limit none' });
  assert.equal(capped.rows.length, MAX_ALL_ROWS);
  assert.equal(capped.limit, MAX_ALL_ROWS, 'a page cut short reports the cap, so the client pages on');
  assert.equal(capped.totalCount, MAX_ALL_ROWS + 7);
  await store.close();
});

test('an attributes field that is not filterable can be written and updated (no side table needed)', async () => {
  const store = await Store.open({ sqlite: ':memory:' });
  const identityId = await store
    .repo('identity')
    .insert({ name: 'x', type: 'Default', isAdmin: false }, { now: now() });
  const sessions = store.repo('api-session');
  const id = await sessions.insert(
    { identityId, authenticatorId: 'a', ipAddress: '', lastActivityAt: now(), tokenHash: 'h', configTypes: ['a'] },
    { now: now() },
  );
  await sessions.update(id, { configTypes: ['b', 'c'] }, now());
  assert.deepEqual((await sessions.get(id)).configTypes, ['b', 'c']);
  await store.close();
});

test('a transaction that fails leaves nothing, and statements from outside wait for it', async () => {
  const store = await Store.open({ sqlite: ':memory:' });
  const repo = store.repo('identity');
  let release!: () => void;
  const paused = new Promise<void>((r) => (release = r));
  const failing = store.tx(async () => {
    await repo.insert({ name: 'uncommitted', type: 'Default', isAdmin: false }, { now: now() });
    await paused;
    throw new Error('changed my mind');
  });
  // Read while the transaction is open: it must not see the uncommitted row.
  const reading = repo.findOne({ name: 'uncommitted' });
  release();
  await assert.rejects(failing, /changed my mind/);
  assert.equal(await reading, undefined);
  assert.equal(await repo.findOne({ name: 'uncommitted' }), undefined);
  await store.close();
});

test('transactions started while another runs wait their turn, however many wait', async () => {
  const store = await Store.open({ sqlite: ':memory:' });
  const repo = store.repo('identity');
  // Three or more waiting woke together when the one running ended, and all but one failed to begin.
  await Promise.all(
    Array.from({ length: 5 }, (_, i) =>
      store.tx(async () => {
        await repo.insert({ name: `in-turn-${i}`, type: 'Default', isAdmin: false }, { now: now() });
      }),
    ),
  );
  assert.equal((await repo.findAll({ name: ['in-turn-0', 'in-turn-4'] })).length, 2);
  await store.close();
});
