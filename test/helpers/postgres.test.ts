// The PostgreSQL test helper against a real server (CTL_TEST_PG_URL, e.g. from scripts/pg-cluster.mjs): a test
// database is fresh, reachable at its URL, distinct from the others, and gone after drop() even with a connection
// left open.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { MIGRATIONS } from '../../src/controller/store/migrations/index.js';
import { PG_URL_VARIABLE, SKIPPED_NOTICE, createTestDatabase, storesUnderTest } from './postgres.js';

describe('storesUnderTest', () => {
  it('adds postgres when CTL_TEST_PG_URL is set', () => {
    const notices: string[] = [];
    assert.deepEqual(
      storesUnderTest({ [PG_URL_VARIABLE]: 'postgres://ctl@127.0.0.1:5432/postgres' }, (t) => notices.push(t)),
      ['sqlite', 'postgres'],
    );
    assert.deepEqual(notices, []);
  });

  it('tests SQLite only without it, and says why PostgreSQL is skipped', () => {
    const notices: string[] = [];
    assert.deepEqual(
      storesUnderTest({}, (t) => notices.push(t)),
      ['sqlite'],
    );
    assert.deepEqual(notices, [SKIPPED_NOTICE]);
    assert.match(SKIPPED_NOTICE, /PostgreSQL tests are skipped: CTL_TEST_PG_URL is not set/);
  });
});

const serverUrl = process.env[PG_URL_VARIABLE];

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  // A session ended by drop() reports the termination as an 'error' event; that is expected here.
  client.on('error', () => {});
  await client.connect();
  return client;
}

async function databaseExists(name: string): Promise<boolean> {
  const admin = await connect(serverUrl!);
  try {
    return (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  } finally {
    await admin.end();
  }
}

describe('createTestDatabase', { skip: serverUrl ? false : `${PG_URL_VARIABLE} is not set` }, () => {
  it('creates a fresh database reachable at its URL, and drops it even while connected', async () => {
    const db = await createTestDatabase();
    assert.match(db.name, /^ctl_test_[a-z0-9_]+$/);
    assert.ok(db.name.length <= 63);
    assert.equal(new URL(db.url).pathname, `/${db.name}`);

    const client = await connect(db.url);
    const { rows } = await client.query<{ db: string; tables: string }>(
      "SELECT current_database() AS db, (SELECT count(*) FROM pg_tables WHERE schemaname = 'public') AS tables",
    );
    assert.deepEqual(rows, [{ db: db.name, tables: '0' }]);
    await client.query('CREATE TABLE t (id integer PRIMARY KEY)');
    await client.query('INSERT INTO t VALUES (1)');

    await db.drop(); // the client above is still connected
    assert.equal(await databaseExists(db.name), false);
    await assert.rejects(client.query('SELECT 1'));
    await client.end().catch(() => {});
    await db.drop(); // a second drop is a no-op
  });

  it('gives each caller its own database', async () => {
    const [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    try {
      assert.notEqual(a.name, b.name);
      assert.equal(await databaseExists(a.name), true);
      assert.equal(await databaseExists(b.name), true);
    } finally {
      await Promise.all([a.drop(), b.drop()]);
    }
  });

  it('with migrated, copies a database that holds every migration already, each copy its own', async () => {
    const [a, b] = await Promise.all([createTestDatabase({ migrated: true }), createTestDatabase({ migrated: true })]);
    try {
      const count = async (url: string, sql: string) => {
        const client = await connect(url);
        try {
          return Number((await client.query<{ n: string }>(sql)).rows[0]!.n);
        } finally {
          await client.end();
        }
      };
      for (const db of [a, b])
        assert.equal(await count(db.url, 'SELECT count(*) AS n FROM schema_migrations'), MIGRATIONS.length);
      const client = await connect(a.url);
      await client.query('DELETE FROM schema_migrations').finally(() => client.end());
      assert.equal(await count(a.url, 'SELECT count(*) AS n FROM schema_migrations'), 0);
      assert.equal(
        await count(b.url, 'SELECT count(*) AS n FROM schema_migrations'),
        MIGRATIONS.length,
        'a change to one copy is not in the other',
      );
    } finally {
      await Promise.all([a.drop(), b.drop()]);
    }
  });
});
