import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type BetterSqlite3 from 'better-sqlite3';
import { parseQuery } from '../../protocol/zitiql/index.js';
import { resource } from '../../resources/index.js';
import { postgresDialect } from './dialects/postgres.js';
import { sqliteDialect } from './dialects/sqlite.js';
import type { Driver } from './driver.js';
import { filterSchema } from './filter-schema.js';
import { compileQuery, SUBSTRING_CANDIDATES } from './filter-sql.js';
import { MIGRATIONS } from './migrations/index.js';
import type { ListParams, Repository } from './repository.js';
import { recordStatements } from './record-statements.js';
import { Store } from './store.js';

// The upgrade test reads and changes the file with the driver directly, as schema.test.ts does.
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
const now = () => new Date().toISOString();

/** A small deterministic generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

// Letters in both cases, LIKE's wildcards and escape, a quote (FTS5's phrase delimiter), a space, non-ASCII letters
// whose case SQLite's upper() leaves alone while FTS5 folds it.
const ALPHABET = ['a', 'A', 'b', 'B', 'c', '%', '_', '\\', '"', ' ', 'é', 'É', '1', '2', '-'];

function word(next: () => number, length: number): string {
  return Array.from({ length }, () => ALPHABET[Math.floor(next() * ALPHABET.length)]).join('');
}

/** The same list read by a plain scan: a `contains` under `not` offers the index nothing (a filter it requires). */
function scanned(filter: string): string {
  return `not (not (${filter}))`;
}

async function page(repo: Repository, params: ListParams) {
  const { rows, totalCount } = await repo.list(params);
  return { ids: rows.map((r) => r.id), totalCount };
}

test('contains and icontains read through the substring index answer what a scan of every name does', async () => {
  const store = await Store.open({ sqlite: ':memory:' });
  const statements = recordStatements(store);
  const repo = store.repo('identity');
  const next = random(7);
  const names = new Set<string>();
  while (names.size < 1200) names.add(`${word(next, 2 + Math.floor(next() * 8))}${names.size % 3 ? '' : 'common'}`);
  const rows = [...names].map((name) => ({ values: { name, type: 'Default', isAdmin: false } }));
  const ids = await repo.insertMany(rows, { now: now() });
  // Renamed and deleted rows: the index must follow every write of the name, not only the inserts.
  for (let i = 0; i < 100; i++) await repo.update(ids[i], { name: `renamed-${word(next, 6)}-${i}` }, now());
  for (let i = 100; i < 150; i++) await repo.delete(ids[i]);
  const current = (await repo.list({ limit: -1 })).rows.map((r) => r.name as string);

  let viaIndex = 0;
  for (let i = 0; i < 300; i++) {
    const from = current[Math.floor(next() * current.length)];
    const start = Math.floor(next() * from.length);
    // Mostly substrings of names (some with their case changed), some needles no name holds, short ones too.
    let needle = i % 5 === 0 ? word(next, 1 + Math.floor(next() * 5)) : from.slice(start, start + 1 + (i % 7));
    if (i % 4 === 1) needle = needle.toUpperCase();
    if (i % 9 === 0) needle = 'common';
    const operator = i % 2 ? 'contains' : 'icontains';
    const filter = `name ${operator} ${JSON.stringify(needle)}`;
    const params = { limit: 7, offset: Math.floor(next() * 3) };
    const before = statements.length;
    const indexed = await page(repo, { ...params, filter });
    if (statements.slice(before).some((s) => s.includes(' MATCH '))) viaIndex++;
    const scan = await page(repo, { ...params, filter: scanned(filter) });
    assert.deepEqual(indexed, scan, `${filter} (offset ${params.offset})`);
    const model = current.filter((name) =>
      operator === 'contains' ? name.includes(needle) : upperAscii(name).includes(upperAscii(needle)),
    );
    assert.equal(indexed.totalCount, model.length, filter);
  }
  assert.ok(viaIndex > 100, `only ${viaIndex} of 300 lists asked the index`);
  await store.close();
});

test('a needle the index finds too often is read by a scan, with the same answer', async () => {
  const store = await Store.open({ sqlite: ':memory:' });
  const repo = store.repo('identity');
  const rows = Array.from({ length: SUBSTRING_CANDIDATES + 20 }, (_, i) => ({
    values: { name: `member-${i}`, type: 'Default', isAdmin: false },
  }));
  await repo.insertMany(rows, { now: now() });
  const filter = 'name contains "member-" and name contains "9"';
  const indexed = await page(repo, { filter, limit: 5 });
  assert.deepEqual(indexed, await page(repo, { filter: scanned(filter), limit: 5 }));
  assert.equal(indexed.totalCount, rows.filter((r) => r.values.name.slice(7).includes('9')).length);
  await store.close();
});

/** SQLite's upper(): ASCII letters only, what icontains compares. */
function upperAscii(text: string): string {
  return text.replace(/[a-z]/g, (c) => c.toUpperCase());
}

test('a database made before substring indexes gets them, filled from the names it holds', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ctl-db-'));
  const file = join(dir, 'ctl.db');
  const store = await Store.open({ sqlite: file });
  await store.repo('identity').insertMany(
    ['laptop-7', 'phone-7', 'laptop-8'].map((name) => ({ values: { name, type: 'Default', isAdmin: false } })),
    { now: now() },
  );
  await store.close();
  // The file as migration 0010 left it: migration 0007's trigram indexes made nothing on SQLite.
  const db = new Database(file);
  for (const op of MIGRATIONS[10].ops) if (op.op === 'dropIndex') db.exec(sqliteDialect.dropIndex(op.name));
  db.prepare('DELETE FROM "schema_migrations" WHERE "id" = 11').run();
  const left = db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE name LIKE '%_trgm%'`).get() as { n: number };
  assert.equal(left.n, 0);
  db.close();
  const upgraded = await Store.open({ sqlite: file });
  const { rows } = await upgraded.repo('identity').list({ filter: 'name contains "laptop"' });
  assert.deepEqual(rows.map((r) => r.name).sort(), ['laptop-7', 'laptop-8']);
  const index = 'SELECT count(*) AS n FROM "identities_name_trgm" WHERE "identities_name_trgm" MATCH \'"laptop"\'';
  const driver = (upgraded as unknown as { driver: Driver }).driver;
  assert.equal((await driver.get<{ n: number }>(index))?.n, 2);
  await upgraded.close();
  rmSync(dir, { recursive: true, force: true });
});

test('only a contains the whole filter requires, on an indexed field, with a text needle, asks the index', () => {
  const schema = filterSchema(resource('identity'));
  const asks = (filter: string) => compileQuery(parseQuery(filter), schema, sqliteDialect).candidates !== undefined;
  assert.equal(asks('name contains "abc"'), true);
  assert.equal(asks('name icontains "ABC"'), true);
  assert.equal(asks('isAdmin = false and (name contains "abc" and externalId = null)'), true);
  assert.equal(asks('name contains "ab"'), false, 'shorter than a trigram');
  assert.equal(asks('name contains 123'), false, 'a number, written out by the database');
  assert.equal(asks('name not contains "abc"'), false);
  assert.equal(asks('not (name contains "abc")'), false);
  assert.equal(asks('name contains "abc" or isAdmin = true'), false);
  assert.equal(asks('externalId contains "abc"'), false, 'no substring index');
  assert.equal(asks('authPolicy.name contains "abc"'), false, "another table's index");
  assert.equal(compileQuery(parseQuery('name contains "abc"'), schema, postgresDialect).candidates, undefined);
});
