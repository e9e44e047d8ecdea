import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type BetterSqlite3 from 'better-sqlite3';
import { CATALOGUE, resource } from '../../resources/index.js';
import { MIGRATIONS } from './migrations/index.js';
import { EMPTY_SCHEMA, applyOps, diffSchemas } from './schema-diff.js';
import { declaredSchema } from './schema-model.js';
import { Store } from './store.js';

// Tests read the file with the driver directly: only the store itself may, and these check what it wrote.
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'ctl-db-'));
}

test('the recorded migrations produce exactly the schema the catalogue declares', () => {
  const recorded = MIGRATIONS.reduce((schema, m) => applyOps(schema, m.ops), EMPTY_SCHEMA);
  const missing = diffSchemas(recorded, declaredSchema(CATALOGUE, resource));
  assert.deepEqual(
    missing,
    [],
    'the catalogue changed without a migration: run `npm run schema:migration -- <name>` and commit the file',
  );
});

test('migrations are numbered 1..n without gaps', () => {
  for (const [i, m] of MIGRATIONS.entries()) assert.equal(m.id, i + 1);
});

test('a fresh database has every declared table, column and index, and the built-in rows', async () => {
  const dir = tempDir();
  const store = await Store.open({ sqlite: join(dir, 'ctl.db') });
  assert.deepEqual(
    (await store.repo('identity-type').findAll({})).map((r) => r.id),
    ['Default', 'Router'],
  );
  const policy = await store.repo('auth-policy').get('default');
  assert.equal(policy.isSystem, true);
  assert.equal((policy.primary as { updb: { allowed: boolean } }).updb.allowed, true);
  await store.close();
  const db = new Database(join(dir, 'ctl.db'), { readonly: true });
  const declared = declaredSchema(CATALOGUE, resource);
  for (const table of Object.values(declared.tables)) {
    const columns = (db.pragma(`table_info("${table.name}")`) as { name: string }[]).map((c) => c.name);
    assert.deepEqual(columns.sort(), table.columns.map((c) => c.name).sort(), `columns of ${table.name}`);
  }
  const objects = new Map(
    (db.prepare(`SELECT name, type FROM sqlite_master`).all() as { name: string; type: string }[]).map((r) => [
      r.name,
      r.type,
    ]),
  );
  for (const [name, index] of Object.entries(declared.indexes)) {
    // A substring index is an FTS5 table on SQLite (dialects/sqlite.ts); value counts are PostgreSQL's alone.
    const made = index.method === 'substring' ? 'table' : index.method ? undefined : 'index';
    assert.equal(objects.get(name), made, `index ${name}`);
  }
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a database of the first release upgrades in place and keeps its rows', async () => {
  const dir = tempDir();
  const file = join(dir, 'ctl.db');
  const legacy = new Database(file);
  legacy.exec(readFileSync(new URL('./testdata/legacy-v1.sql', import.meta.url), 'utf8'));
  legacy.close();
  const store = await Store.open({ sqlite: file });
  const laptop = await store.repo('identity').get('legacy1');
  assert.equal(laptop.name, 'legacy-laptop');
  assert.deepEqual(laptop.roleAttributes, ['sales']);
  assert.deepEqual(
    (await store.repo('identity').list({ filter: 'anyOf(roleAttributes) = "sales"' })).rows.map((r) => r.id),
    ['legacy1'],
  );
  // What the later migrations add works on the upgraded file: one password per identity.
  const now = new Date().toISOString();
  await store
    .repo('authenticator')
    .insert({ identityId: 'legacy1', method: 'updb', username: 'legacy-user', password: 'x' }, { now });
  await assert.rejects(
    store
      .repo('authenticator')
      .insert({ identityId: 'legacy1', method: 'updb', username: 'legacy-two', password: 'x' }, { now }),
    (err: { cause?: { field?: string } }) => err.cause?.field === 'identityId',
  );
  await store.close();
  const db = new Database(file, { readonly: true });
  const applied = (db.prepare('SELECT id FROM schema_migrations ORDER BY id').all() as { id: number }[]).map(
    (r) => r.id,
  );
  assert.deepEqual(
    applied,
    MIGRATIONS.map((m) => m.id),
  );
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

test('the database file is readable by its owner only', async () => {
  const dir = tempDir();
  const store = await Store.open({ sqlite: join(dir, 'ctl.db') });
  await store
    .repo('identity')
    .insert({ name: 'x', type: 'Default', isAdmin: false }, { now: new Date().toISOString() });
  for (const f of ['ctl.db', 'ctl.db-wal']) assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600, f);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a file that is not a database is a clear error naming it', async () => {
  const dir = tempDir();
  const file = join(dir, 'ctl.db');
  (await import('node:fs')).writeFileSync(
    file,
    'this is not a database, it is a text file with enough bytes to look like a header'.repeat(20),
  );
  await assert.rejects(
    Store.open({ sqlite: file }),
    (err: Error) => err.name === 'StoreUnavailableError' && err.message.includes(file),
  );
  rmSync(dir, { recursive: true, force: true });
});

test('a database a newer controller migrated is refused, naming the unknown migration, and left alone', async () => {
  const dir = tempDir();
  const file = join(dir, 'ctl.db');
  await (await Store.open({ sqlite: file })).close();
  const future = MIGRATIONS[MIGRATIONS.length - 1].id + 1;
  const db = new Database(file);
  const record = db.prepare('INSERT INTO schema_migrations (id, name, appliedAt) VALUES (?, ?, ?)');
  record.run(future, 'from-a-newer-version', new Date().toISOString());
  db.close();
  await assert.rejects(Store.open({ sqlite: file }), (err: Error) => {
    assert.equal(err.name, 'ControllerStartError');
    const named = new RegExp(`newer than this controller: it records migration ${future} \\(from-a-newer-version\\)`);
    assert.match(err.message, named);
    return true;
  });
  const after = new Database(file, { readonly: true });
  const rows = after.prepare('SELECT id FROM schema_migrations ORDER BY id').all() as { id: number }[];
  assert.deepEqual(
    rows.map((r) => r.id),
    [...MIGRATIONS.map((m) => m.id), future],
  );
  after.close();
  rmSync(dir, { recursive: true, force: true });
});
