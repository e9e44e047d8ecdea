// The write versions controllers sharing a PostgreSQL database read (write-version-watch.ts) are kept by triggers
// that migration 0012 makes: on a database an older controller left, with its own triggers made at start, they are
// replaced, the versions counted so far kept, and every kept resource's writes bump its version once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CATALOGUE, resource } from '../../resources/index.js';
import { createTestDatabase, storesUnderTest } from '../../../test/helpers/postgres.js';
import type { Driver } from './driver.js';
import { MIGRATIONS } from './migrations/index.js';
import { diffSchemas } from './schema-diff.js';
import { declaredSchema } from './schema-model.js';
import { Store } from './store.js';
import { readWriteVersions } from './write-version-watch.js';
import { KEPT_RESOURCES } from './write-versions.js';

const now = () => new Date().toISOString();
const driverOf = (store: Store) => (store as unknown as { driver: Driver }).driver;

/** What a controller before migration 0012 made at every start (of one table here: enough to see it replaced). */
const OLD_START_TIME_DDL = [
  `CREATE TABLE IF NOT EXISTS "ctl_write_versions" ("resource" text PRIMARY KEY, "version" bigint NOT NULL)`,
  `CREATE OR REPLACE FUNCTION ctl_bump_write_version() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ` +
    `INSERT INTO "ctl_write_versions" ("resource", "version") VALUES (TG_ARGV[0], 1) ` +
    `ON CONFLICT ("resource") DO UPDATE SET "version" = "ctl_write_versions"."version" + 1; RETURN NULL; END $$`,
  `CREATE TRIGGER ctl_write_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "identities" ` +
    `FOR EACH STATEMENT EXECUTE FUNCTION ctl_bump_write_version('identity')`,
];

it('a change of what a table versions is recorded as its triggers dropped and made again', () => {
  const declared = declaredSchema(CATALOGUE, resource);
  const changed = structuredClone(declared);
  const sessions = changed.indexes.api_sessions_write_version;
  sessions.writeVersion = { resource: 'api-session', ignoring: ['lastActivityAt', 'ipAddress'] };
  assert.deepEqual(diffSchemas(declared, changed), [
    { op: 'dropIndex', name: 'api_sessions_write_version' },
    { op: 'createIndex', index: sessions },
  ]);
});

if (storesUnderTest().includes('postgres')) {
  describe('write versions (PostgreSQL)', () => {
    it('migration 0012 replaces the triggers made at start and bumps each kept resource once per write', async () => {
      const db = await createTestDatabase();
      const location = { postgres: db.url };
      let store = await Store.open(location, { migrations: MIGRATIONS.slice(0, 11) });
      try {
        for (const ddl of OLD_START_TIME_DDL) await driverOf(store).exec(ddl);
        const identities = store.repo('identity');
        const first = await identities.insert({ name: 'before', type: 'Default', isAdmin: false }, { now: now() });
        assert.equal((await readWriteVersions(driverOf(store))).get('identity'), '1');
        await store.close();

        store = await Store.open(location);
        const driver = driverOf(store);
        const triggers = await driver.all<{ tgname: string }>(
          'SELECT "tgname" FROM pg_trigger WHERE NOT "tgisinternal" AND "tgname" LIKE ? ORDER BY "tgname"',
          ['%write_version%'],
        );
        const declared = Object.values(declaredSchema(CATALOGUE, resource).indexes).filter(
          (index) => index.method === 'writeVersion',
        );
        assert.deepEqual(
          declared.map((index) => index.writeVersion?.resource).sort(),
          [...KEPT_RESOURCES.keys()].sort(),
        );
        const expected = declared.flatMap((index) =>
          index.writeVersion?.ignoring ? [`${index.name}_delete`, `${index.name}_update`] : [index.name],
        );
        assert.deepEqual(
          triggers.map((row) => row.tgname),
          expected.sort(),
        );

        await store.repo('identity').update(first, { name: 'after' }, now());
        assert.equal((await readWriteVersions(driver)).get('identity'), '2', 'kept, and bumped once');

        const session = await store
          .repo('api-session')
          .insert(
            { identityId: first, authenticatorId: 'a', ipAddress: '127.0.0.1', lastActivityAt: now() },
            { now: now() },
          );
        assert.equal((await readWriteVersions(driver)).get('api-session'), undefined, 'a new session changes none');
        await store.sessionActivity.write(new Map([[session, '2999-01-01T00:00:00.000Z']]));
        assert.equal((await readWriteVersions(driver)).get('api-session'), undefined, 'activity changes none');
        await store.repo('api-session').update(session, { isMfaComplete: true }, now());
        assert.equal((await readWriteVersions(driver)).get('api-session'), '1');
        await store.repo('api-session').delete(session);
        assert.equal((await readWriteVersions(driver)).get('api-session'), '2');

        await store.repo('service').insert({ name: 'not-kept', encryptionRequired: true }, { now: now() });
        assert.equal((await readWriteVersions(driver)).get('service'), undefined, 'only kept resources are versioned');
      } finally {
        await store.close();
        await db.drop();
      }
    });
  });
}
