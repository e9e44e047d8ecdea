// A rolling upgrade of two controllers serving one PostgreSQL database: each in turn is stopped and started again
// as the next release, whose schema has one more migration, while a client keeps reading and writing through its
// profile's list of both. The first new one migrates, once, under the advisory lock; the old one still running
// serves on over the added column; an old one started after the upgrade is refused, naming the migration.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startController } from '../../src/controller/index.js';
import { MIGRATIONS } from '../../src/controller/store/migrations/index.js';
import type { Migration } from '../../src/controller/store/schema-diff.js';
import type { ControllerOptions } from '../../src/controller/types.js';
import { startTestController, storeUnderTest, unique, type TestController } from '../helpers/controller.js';
import { type CtlResult, jsonItems, parseJsonOutput, runCtl, tempConfigDir } from '../helpers/cli.js';
import { TEST_PASSWORD_COST } from '../helpers/fixtures.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { writeTestKeyFile } from '../helpers/pki-key-file.js';

const postgres = storeUnderTest() === 'postgres';

/** The next release's schema: a column added to a table the old release reads and writes. */
const NEXT: Migration = {
  id: MIGRATIONS[MIGRATIONS.length - 1].id + 1,
  name: 'rolling-upgrade-test-column',
  ops: [{ op: 'addColumn', table: 'identities', column: { name: 'upgradeTestNote', type: 'text', notNull: false } }],
};

describe('a rolling upgrade of two controllers on one database', { skip: !postgres && 'PostgreSQL only' }, () => {
  let tmp: string;
  let database: TestDatabase;
  let configDir: string;
  let keyFile: string;
  const running = new Set<TestController>();

  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-upgrade-'));
    keyFile = await writeTestKeyFile(tmp);
    database = await createTestDatabase();
    configDir = await tempConfigDir();
  });
  after(async () => {
    for (const ctl of running) await ctl.close();
    await database?.drop();
    await rm(tmp, { recursive: true, force: true });
    if (configDir) await rm(path.dirname(configDir), { recursive: true, force: true });
  });

  const options = (name: string, extra: Partial<ControllerOptions> = {}): Partial<ControllerOptions> => ({
    dataDir: path.join(tmp, name),
    storeUrl: database.url,
    pkiKeyFile: keyFile,
    sharedDatabase: true,
    ...extra,
  });
  const start = async (name: string, extra: Partial<ControllerOptions>) => {
    const ctl = await startTestController(options(name, extra));
    running.add(ctl);
    return ctl;
  };
  const stop = async (ctl: TestController) => {
    await ctl.close();
    running.delete(ctl);
  };
  /** When the database recorded NEXT, and how many times. */
  const recorded = async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const sql = 'SELECT "appliedAt" FROM "schema_migrations" WHERE "id" = $1';
      return (await client.query<{ appliedAt: string }>(sql, [NEXT.id])).rows.map((row) => row.appliedAt);
    } finally {
      await client.end();
    }
  };

  it('loses no request the client makes again, migrates once, and the old one serves on', async () => {
    const oldA = await start('a', {});
    const password = oldA.adminPassword;
    const oldB = await start('b', { adminPassword: password });
    const ctl = (args: string[], stdin?: string) => runCtl(args, { configDir, stdin });
    const login = await ctl(
      ['login', `${oldA.url},${oldB.url}`, '-u', 'admin', '--password-stdin', '--ca', oldA.caFile],
      `${password}\n`,
    );
    assert.equal(login.code, 0, login.stderr);

    // The client, all along: a list, then a create, again and again, each a command of its own.
    const reads: CtlResult[] = [];
    const writes: Array<{ name: string; result: CtlResult }> = [];
    let upgrading = true;
    const client = (async () => {
      while (upgrading) {
        reads.push(await ctl(['identity', 'list', '--limit', '1', '-o', 'json']));
        const name = unique('during-upgrade');
        writes.push({ name, result: await ctl(['identity', 'create', name]) });
      }
    })();
    const served = async (minimum: number) => {
      const target = reads.length + minimum;
      while (reads.length < target) await sleep(20);
    };

    await served(2);
    await stop(oldA);
    await served(2);
    const newA = await start('a', { adminPassword: password, port: oldA.port, migrations: [...MIGRATIONS, NEXT] });
    const migratedAt = await recorded();
    assert.equal(migratedAt.length, 1, 'the new controller migrated');
    await served(2);
    // The old one still running serves over the schema it does not know: it reads and writes the table that grew.
    const onOldB = await (await oldB.admin()).post('/identities', {
      name: unique('old-b'),
      type: 'User',
      isAdmin: false,
    });
    assert.equal(onOldB.status, 201, onOldB.text);
    assert.equal((await (await oldB.admin()).get('/identities')).status, 200);

    // An old release started now is refused, naming what it does not know; nothing of it was written.
    const cheap = { adminPassword: 'unused-pw', passwordCost: TEST_PASSWORD_COST, port: 0 };
    const old = startController({ ...cheap, ...options('old-c') } as ControllerOptions);
    await assert.rejects(old, new RegExp(`records migration ${NEXT.id} \\(${NEXT.name}\\)`));

    await stop(oldB);
    await served(2);
    const newB = await start('b', { adminPassword: password, port: oldB.port, migrations: [...MIGRATIONS, NEXT] });
    await served(2);
    upgrading = false;
    await client;
    assert.deepEqual(await recorded(), migratedAt, 'migrated once: the second new controller found it done');

    const failedReads = reads.filter((r) => r.code !== 0);
    assert.deepEqual(
      failedReads.map((r) => r.stderr),
      [],
      `every read was answered (${reads.length})`,
    );
    const failedWrites = writes.filter((w) => w.result.code !== 0);
    assert.deepEqual(
      failedWrites.map((w) => w.result.stderr),
      [],
      `every create was answered (${writes.length})`,
    );
    const listed = await ctl(['identity', 'list', '--limit', '500', '-o', 'json']);
    const names = new Set(jsonItems(parseJsonOutput(listed)).map((identity) => identity.name as string));
    assert.deepEqual(
      writes.filter((w) => !names.has(w.name)).map((w) => w.name),
      [],
      'every create acknowledged is there',
    );
    for (const ctlNow of [newA, newB]) assert.equal((await (await ctlNow.admin()).get('/controllers')).status, 200);
  });
});
