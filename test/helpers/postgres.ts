/**
 * PostgreSQL for the tests. CTL_TEST_PG_URL names a server where the tests may create and drop databases (a
 * superuser URL, as `node scripts/pg-cluster.mjs start` prints); without it only SQLite is tested.
 *
 *   for (const store of storesUnderTest()) describe(`... (${store})`, () => { ... });
 *   const db = await createTestDatabase();   // db.url: a fresh, empty database; await db.drop() when done
 *   const db = await createTestDatabase({ migrated: true });   // the same, with the current schema in it
 */
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import pg from 'pg';
import { MIGRATIONS } from '../../src/controller/store/migrations/index.js';
import { Store } from '../../src/controller/store/store.js';

export type StoreKind = 'sqlite' | 'postgres';

export const PG_URL_VARIABLE = 'CTL_TEST_PG_URL';

export const SKIPPED_NOTICE =
  `note: PostgreSQL tests are skipped: ${PG_URL_VARIABLE} is not set. To run them: ` +
  `export ${PG_URL_VARIABLE}=$(node scripts/pg-cluster.mjs start) (see README, "PostgreSQL tests")`;

/**
 * The stores every end-to-end test runs against: SQLite always, PostgreSQL when CTL_TEST_PG_URL is set. When it is
 * not, `notice` gets SKIPPED_NOTICE (by default written on stderr once per test run).
 */
export function storesUnderTest(
  env: NodeJS.ProcessEnv = process.env,
  notice: (text: string) => void = noticeOncePerRun,
): StoreKind[] {
  if (env[PG_URL_VARIABLE]) return ['sqlite', 'postgres'];
  notice(SKIPPED_NOTICE);
  return ['sqlite'];
}

let noticed = false;

/**
 * The runner starts one process per test file, all children of the same runner: the first to create a marker file
 * named after the runner's pid speaks, the others stay quiet.
 */
function noticeOncePerRun(text: string): void {
  if (noticed) return;
  noticed = true;
  try {
    writeFileSync(path.join(os.tmpdir(), `ctl-test-pg-skipped-${os.userInfo().uid}-${process.ppid}`), '', {
      flag: 'wx',
    });
  } catch {
    return; // another test file of this run has said it already
  }
  process.stderr.write(`${text}\n`);
}

export interface TestDatabase {
  /** Its name (ctl_test_...). */
  name: string;
  /** CTL_TEST_PG_URL with this database in the path. */
  url: string;
  /** Drops the database, first ending any connection still open to it. Safe to call twice. */
  drop(): Promise<void>;
}

/** The PostgreSQL URL from the environment, or an error that says how to get one. */
export function testPgUrl(env: NodeJS.ProcessEnv = process.env): string {
  const url = env[PG_URL_VARIABLE];
  if (!url)
    throw new Error(
      `${PG_URL_VARIABLE} is not set: start a cluster with node scripts/pg-cluster.mjs start and export its URL`,
    );
  return url;
}

async function withAdminClient<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Lower case, within PostgreSQL's 63 bytes, unique across the parallel test processes. */
function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

const templates = new Map<string, Promise<string>>();

/**
 * A database holding the schema of the current migrations, made once per server and schema (its name carries a
 * hash of the migrations). Test databases are copies of it: creating some sixty tables and their indexes costs the
 * server about 0.3 s per controller, a copy a fraction of that. Made under another name and renamed into place, so
 * that test processes starting together never copy half of one; whoever loses the race drops its own.
 */
function migratedTemplate(serverUrl: string): Promise<string> {
  let template = templates.get(serverUrl);
  if (!template) {
    template = (async () => {
      const name = `ctl_template_${createHash('sha256').update(JSON.stringify(MIGRATIONS)).digest('hex').slice(0, 16)}`;
      const exists = await withAdminClient(
        serverUrl,
        async (client) => (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1,
      );
      if (exists) return name;
      const making = uniqueName('ctl_template_making');
      await withAdminClient(serverUrl, (client) => client.query(`CREATE DATABASE ${client.escapeIdentifier(making)}`));
      const store = await Store.open({ postgres: databaseUrl(serverUrl, making) });
      await store.close();
      await withAdminClient(serverUrl, async (client) => {
        try {
          await client.query(
            `ALTER DATABASE ${client.escapeIdentifier(making)} RENAME TO ${client.escapeIdentifier(name)}`,
          );
        } catch {
          await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(making)}`);
        }
      });
      return name;
    })();
    templates.set(serverUrl, template);
  }
  return template;
}

/**
 * Creates a fresh, uniquely named database on the CTL_TEST_PG_URL server: empty, or with `migrated` a copy of the
 * current schema (what a controller would make on its first start; tests of migrating start from empty ones).
 */
export async function createTestDatabase(opts: { migrated?: boolean; serverUrl?: string } = {}): Promise<TestDatabase> {
  const serverUrl = opts.serverUrl ?? testPgUrl();
  const name = uniqueName('ctl_test');
  const template = opts.migrated ? ` TEMPLATE ${await migratedTemplate(serverUrl)}` : '';
  await withAdminClient(serverUrl, (client) =>
    client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}${template}`),
  );
  const url = new URL(databaseUrl(serverUrl, name));
  let dropped = false;
  return {
    name,
    url: url.toString(),
    async drop() {
      if (dropped) return;
      await withAdminClient(serverUrl, async (client) => {
        // A pool the test did not close would keep the database busy: end those sessions first.
        await client.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [name],
        );
        const { rows } = await client.query<{ version: string }>(
          "SELECT current_setting('server_version_num') AS version",
        );
        // FORCE (PostgreSQL 13+) also ends a session that connected between the two statements.
        const force = Number(rows[0]!.version) >= 130000 ? ' WITH (FORCE)' : '';
        await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)}${force}`);
      });
      dropped = true;
    },
  };
}

const databasesByDataDir = new Map<string, Promise<TestDatabase>>();

/**
 * For tests that run `ctl controller start` as a process: under CTL_TEST_STORE=postgres, the environment that
 * points it at a database of its own (one per data directory, so a restart finds its data again); nothing under
 * SQLite. `dropDataDirDatabases()` removes them when the file is done.
 */
export async function storeEnvFor(dataDir: string): Promise<Record<string, string>> {
  if (process.env.CTL_TEST_STORE !== 'postgres') return {};
  let database = databasesByDataDir.get(dataDir);
  if (!database) {
    database = createTestDatabase();
    databasesByDataDir.set(dataDir, database);
  }
  return { CTL_STORE_URL: (await database).url };
}

export async function dropDataDirDatabases(): Promise<void> {
  for (const database of databasesByDataDir.values()) await (await database).drop();
  databasesByDataDir.clear();
}

/**
 * A store of `kind` for the suite this is called in: opened before its tests (on PostgreSQL, in a migrated database
 * of its own) and handed to `use`, closed after them and its database dropped.
 */
export function openStoreForSuite(kind: StoreKind, use: (store: Store) => void): void {
  let db: TestDatabase | undefined;
  let store: Store | undefined;
  before(async () => {
    db = kind === 'postgres' ? await createTestDatabase({ migrated: true }) : undefined;
    store = await Store.open(db ? { postgres: db.url } : { sqlite: ':memory:' });
    use(store);
  });
  after(async () => {
    await store?.close();
    await db?.drop();
  });
}
