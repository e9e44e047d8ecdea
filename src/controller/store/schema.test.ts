import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATALOGUE } from '../../resources/index.js';
import { storedFields } from './codec.js';
import { openDatabase } from './db.js';
import { setTable } from './filter-schema.js';
import { MIGRATIONS } from './migrations.js';

test('the migrated schema has a column for every stored catalogue field, and a side table per attribute set', () => {
  const db = openDatabase(':memory:');
  for (const def of CATALOGUE) {
    const columns = new Set((db.pragma(`table_info(${def.table})`) as { name: string }[]).map((c) => c.name));
    assert.ok(columns.size > 0, `table ${def.table} exists`);
    for (const name of ['id', 'createdAt', 'updatedAt', 'tags', 'isSystem', ...storedFields(def)]) {
      assert.ok(columns.has(name), `${def.table}.${name} exists`);
    }
    for (const [name, field] of Object.entries(def.fields)) {
      if (field.type.kind !== 'attributes' || !field.filterable) continue;
      const side = db.pragma(`table_info(${setTable(def, name)})`) as unknown[];
      assert.ok(side.length > 0, `side table ${setTable(def, name)} exists`);
    }
  }
  db.close();
});

test('migrations are numbered 1..n without gaps and the database records the last', () => {
  MIGRATIONS.forEach((m, i) => assert.equal(m.version, i + 1));
  const db = openDatabase(':memory:');
  assert.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.length);
  db.close();
});

test('a fresh database has the built-in data: identity types and the default auth policy', () => {
  const db = openDatabase(':memory:');
  assert.deepEqual(db.prepare('SELECT id FROM identity_types ORDER BY id').all(), [{ id: 'Default' }, { id: 'Router' }]);
  const policy = db.prepare(`SELECT name, "primary", isSystem FROM auth_policies WHERE id = 'default'`).get() as { name: string; primary: string; isSystem: number };
  assert.equal(policy.name, 'Default');
  assert.equal(policy.isSystem, 1);
  assert.equal(JSON.parse(policy.primary).updb.allowed, true);
  db.close();
});

test('the database file is readable by its owner only', async () => {
  const { mkdtempSync, statSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'ctl-db-'));
  const db = openDatabase(join(dir, 'ctl.db'));
  db.prepare(`INSERT INTO identity_types (id, name, createdAt, updatedAt) VALUES ('x', 'x', 'now', 'now')`).run();
  for (const f of ['ctl.db', 'ctl.db-wal']) assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600, f);
  db.close();
  rmSync(dir, { recursive: true, force: true });
});
