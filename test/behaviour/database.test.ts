// The database group: an integrity check that finds real inconsistencies (references to missing rows, sets whose
// side table and stored value disagree, role @ids of deleted entities), a fix run that repairs what can be repaired
// and says what it cannot, one run at a time, and snapshots (SQLite: a consistent owner-only copy beside the
// database, at most one a minute; PostgreSQL and in-memory: a clear refusal). Both stores. The damage is done with
// SQL on the store's own connection, as a crash or a hand edit would leave it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { checkSettled } from '../../src/controller/model/database.js';
import { createController, type Controller } from '../../src/controller/index.js';
import { loadOrCreatePki } from '../../src/controller/pki/pki.js';
import type { Driver } from '../../src/controller/store/driver.js';
import { substringIndexName, valueCountsName } from '../../src/controller/store/schema-model.js';
import { resource } from '../../src/resources/index.js';
import { TEST_PASSWORD_COST, sharedTestPki } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';
import { checkResponse } from '../helpers/in-process-specs.js';
import { validateResponse } from '../helpers/spec.js';

/** The store's connection, to damage the data underneath the API. */
function driverOf(t: TestApp): Driver {
  return (t.app.runtime.store as unknown as { driver: Driver }).driver;
}

/**
 * Runs `work` with foreign keys not enforced (SQLite: off for the connection; PostgreSQL:
 * replica role in a transaction).
 */
async function withoutForeignKeys(driver: Driver, work: () => Promise<void>): Promise<void> {
  if (driver.dialect.name === 'sqlite') {
    await driver.exec('PRAGMA foreign_keys = OFF');
    try {
      await work();
    } finally {
      await driver.exec('PRAGMA foreign_keys = ON');
    }
  } else {
    await driver.tx(async () => {
      await driver.run('SET LOCAL session_replication_role = replica');
      await work();
    });
  }
}

async function runCheck(t: TestApp, kind: 'check' | 'fix'): Promise<any> {
  const start = await t.admin.request('POST', `/database/${kind}-data-integrity`);
  assert.equal(start.status, 202, JSON.stringify(start.body));
  await checkResponse(t, 'management', 'POST', `/database/${kind}-data-integrity`, 202, start.body);
  await checkSettled(t.app.runtime);
  const res = await t.admin.request('GET', '/database/data-integrity-results');
  assert.equal(res.status, 200);
  await checkResponse(t, 'management', 'GET', '/database/data-integrity-results', 200, res.body);
  assert.equal(res.body.data.inProgress, false);
  assert.equal(res.body.data.fixingErrors, kind === 'fix');
  assert.equal(res.body.data.error, '');
  assert.equal(res.body.meta.pagination.totalCount, res.body.data.results.length);
  return res.body.data;
}

for (const store of storesUnderTest()) {
  describe(`database integrity (${store})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(store);
    });
    after(async () => t?.close());

    it('says nothing was checked yet before the first run, and finds nothing wrong in a sound database', async () => {
      const first = await t.admin.request('GET', '/database/data-integrity-results');
      assert.equal(first.status, 200);
      assert.equal(first.body.data.startTime, null);
      assert.deepEqual(first.body.data.results, []);
      // PostgreSQL: with amcheck installed, every index of the schema is checked too (and must pass).
      if (store === 'postgres') await driverOf(t).run('CREATE EXTENSION IF NOT EXISTS amcheck');
      const idId = (
        await t.admin.request('POST', '/identities', {
          json: { name: 'sound', type: 'User', isAdmin: false, roleAttributes: ['a', 'b'] },
        })
      ).body.data.id;
      await t.admin.request('POST', '/service-policies', {
        json: { name: 'sound', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${idId}`], serviceRoles: ['#all'] },
      });
      const result = await runCheck(t, 'check');
      assert.deepEqual(result.results, []);
      assert.ok(Date.parse(result.startTime) <= Date.parse(result.endTime));
    });

    it('opens a transaction only for what it reads: each holds writers off while it runs', async () => {
      const driver = driverOf(t);
      const tx = driver.tx;
      const statementsPerTransaction: number[] = [];
      let depth = 0;
      driver.tx = async <T>(fn: () => Promise<T>): Promise<T> => {
        if (depth > 0) return tx.call(driver, fn) as Promise<T>;
        depth++;
        try {
          return (await tx.call(driver, async () => {
            const before = driver.statementsRun;
            const result = await fn();
            statementsPerTransaction.push(driver.statementsRun - before);
            return result;
          })) as T;
        } finally {
          depth--;
        }
      };
      try {
        await runCheck(t, 'check');
      } finally {
        driver.tx = tx;
      }
      assert.ok(statementsPerTransaction.length > 0, 'the check ran in transactions');
      const empty = statementsPerTransaction.filter((n) => n === 0).length;
      assert.equal(empty, 0, `${empty} of ${statementsPerTransaction.length} transactions ran no statement`);
    });

    it('finds the damage, repairs what it can on fix, and a second check finds only what needs a person', async () => {
      const driver = driverOf(t);
      const admin = t.admin;
      const identity = (
        await admin.request('POST', '/identities', {
          json: { name: 'damaged', type: 'User', isAdmin: false, roleAttributes: ['x', 'y'] },
        })
      ).body.data.id;
      const doomed = (
        await admin.request('POST', '/identities', { json: { name: 'doomed', type: 'User', isAdmin: false } })
      ).body.data.id;
      const policy = (
        await admin.request('POST', '/service-policies', {
          json: {
            name: 'damaged',
            type: 'Bind',
            semantic: 'AllOf',
            identityRoles: [`@${doomed}`, '#x'],
            serviceRoles: ['#all'],
          },
        })
      ).body.data.id;
      const configType = (await admin.request('POST', '/config-types', { json: { name: 'damaged-type' } })).body.data
        .id;
      const config = (
        await admin.request('POST', '/configs', {
          json: { name: 'damaged-config', configTypeId: configType, data: {} },
        })
      ).body.data.id;
      const authenticator = (
        await admin.request('POST', '/authenticators', {
          json: { method: 'updb', identityId: doomed, username: 'doomed-user', password: 'Doomed-password-1' },
        })
      ).body.data.id;

      // A side row lost; an identity and a config type deleted under the rows that point at them.
      await driver.run('DELETE FROM "identities_roleAttributes" WHERE "ownerId" = ? AND "value" = ?', [identity, 'y']);
      await withoutForeignKeys(driver, async () => {
        await driver.run('DELETE FROM "identities" WHERE "id" = ?', [doomed]);
        await driver.run('DELETE FROM "config_types" WHERE "id" = ?', [configType]);
      });

      const found = await runCheck(t, 'check');
      const text = found.results.map((r: { description: string }) => r.description);
      const has = (...parts: string[]) => text.some((d: string) => parts.every((p) => d.includes(p)));
      assert.ok(has('authenticators', authenticator, 'identityId', doomed), text.join('\n'));
      assert.ok(has('configs', config, 'configTypeId', configType), text.join('\n'));
      assert.ok(has('identities', identity, 'roleAttributes', 'missing ["y"]'), text.join('\n'));
      assert.ok(has('service_policies', policy, 'identityRoles', `@${doomed}`), text.join('\n'));
      assert.ok(
        has('access index', policy, 'identityRoles', '1 extra'),
        'the access index still selects the identity deleted under it',
      );
      assert.ok(
        found.results.every((r: { fixed: boolean }) => r.fixed === false),
        'a check changes nothing',
      );
      assert.equal(
        (await admin.request('GET', `/authenticators/${authenticator}`)).status,
        200,
        'still there after a check',
      );

      const fixed = await runCheck(t, 'fix');
      const outcome = (...parts: string[]) =>
        fixed.results.find((r: { description: string }) => parts.every((p) => r.description.includes(p)))?.fixed;
      assert.equal(outcome('authenticators', authenticator), true, 'a cascading reference: the row goes');
      assert.equal(outcome('configs', config), false, 'a required reference: a person must decide');
      assert.equal(outcome('identities', identity, 'roleAttributes'), true);
      assert.equal(outcome('service_policies', policy, `@${doomed}`), true);
      assert.equal(
        outcome('access index', policy),
        undefined,
        "the role set's repair, a write through the write path, rebuilt the policy's access index with it",
      );

      assert.equal((await admin.request('GET', `/authenticators/${authenticator}`)).status, 404);
      const roles = (await admin.request('GET', `/service-policies/${policy}`)).body.data.identityRoles;
      assert.deepEqual(roles, ['#x'], 'the dangling @id left the role set');
      const byAttribute = await admin.request('GET', '/identities', {
        query: `filter=${encodeURIComponent('anyOf(roleAttributes) = "y"')}`,
      });
      assert.deepEqual(
        byAttribute.body.data.map((i: { id: string }) => i.id),
        [identity],
        'the filter finds the identity again',
      );

      const again = await runCheck(t, 'check');
      assert.deepEqual(
        again.results.map((r: { description: string }) => r.description.includes(config)),
        [true],
        `only the config without its type is left: ${JSON.stringify(again.results)}`,
      );
    });

    it('a stored value that does not decode is damage naming the entity and field, not its bytes', async () => {
      const admin = t.admin;
      const json = { name: 'garbled', type: 'User', isAdmin: false, appData: { a: 1 } };
      const id = (await admin.request('POST', '/identities', { json })).body.data.id;
      const garble = 'UPDATE "identities" SET "appData" = ? WHERE "id" = ?';
      await driverOf(t).run(garble, ['{"a": 1, SECRET-BYTES \u0007', id]);
      for (const res of [await admin.request('GET', `/identities/${id}`), await admin.request('GET', '/identities')]) {
        assert.equal(res.status, 503, JSON.stringify(res.body));
        assert.equal(res.body.error.code, 'STORE_UNAVAILABLE');
        const damage = new RegExp(`identity '${id}' is damaged: its field appData cannot be read`);
        assert.match(res.body.error.message, damage);
        assert.doesNotMatch(JSON.stringify(res.body), /SECRET-BYTES|bug/);
      }
      await driverOf(t).run(garble, ['{}', id]);
      assert.equal((await admin.request('GET', `/identities/${id}`)).status, 200);
    });

    it('checks the tables filters read against the rows, and rebuilds them on fix', async () => {
      const admin = t.admin;
      const json = { name: 'search-zq7x', type: 'User', isAdmin: false, roleAttributes: ['counted-zq7x'] };
      const id = (await admin.request('POST', '/identities', { json })).body.data.id;
      const found = async () => {
        const byName = await admin.request('GET', '/identities', {
          query: `filter=${encodeURIComponent('name contains "zq7x"')}`,
        });
        const byAttribute = await admin.request('GET', '/identities', {
          query: `filter=${encodeURIComponent('anyOf(roleAttributes) = "counted-zq7x"')}`,
        });
        return {
          byName: byName.body.data.map((i: { id: string }) => i.id),
          counted: byAttribute.body.meta.pagination.totalCount,
        };
      };
      assert.deepEqual(await found(), { byName: [id], counted: 1 });
      // SQLite: the name's entry in the substring index lost; PostgreSQL: the attribute's count off by three.
      if (store === 'sqlite') {
        await driverOf(t).run(`DELETE FROM "${substringIndexName('identities', 'name')}_rows" WHERE "id" = ?`, [id]);
        assert.deepEqual((await found()).byName, [], 'the filter misses the entity');
      } else {
        const counts = valueCountsName(resource('identity'), 'roleAttributes');
        await driverOf(t).run(`UPDATE "${counts}" SET "n" = "n" + 3 WHERE "value" = ?`, ['counted-zq7x']);
        assert.equal((await found()).counted, 4, 'the count is wrong');
      }
      const searchIssues = (result: { results: { description: string; fixed: boolean }[] }) =>
        result.results.filter((r) => /^(substring index|value counts) /.test(r.description));
      const checked = searchIssues(await runCheck(t, 'check'));
      const named =
        store === 'sqlite'
          ? /identities\.name: 1 row\(s\) of identities not indexed, 1 text\(s\) indexed for no row$/
          : /"counted-zq7x" held 1, counted 4$/;
      assert.equal(checked.length, 1, JSON.stringify(checked));
      assert.match(checked[0].description, named);
      assert.equal(checked[0].fixed, false);
      const fixed = searchIssues(await runCheck(t, 'fix'));
      assert.deepEqual(
        fixed.map((r) => r.fixed),
        [true],
      );
      assert.deepEqual(await found(), { byName: [id], counted: 1 }, 'the filters find it again, and count it once');
      assert.deepEqual(searchIssues(await runCheck(t, 'check')), []);
      // The rebuilt index is kept by its triggers again: a later write is found and counted.
      const other = (await admin.request('POST', '/identities', { json: { ...json, name: 'search-zq7x-2' } })).body.data
        .id;
      const both = await found();
      assert.deepEqual({ ...both, byName: both.byName.sort() }, { byName: [id, other].sort(), counted: 2 });
    });

    it('runs one check at a time: a second start while one runs is 429 RATE_LIMITED', async () => {
      // Both sent at once: the second arrives while the first's check is still running.
      const [first, second] = await Promise.all([
        t.admin.request('POST', '/database/check-data-integrity'),
        t.admin.request('POST', '/database/fix-data-integrity'),
      ]);
      // Either may be handled first: one runs, the other is refused.
      assert.deepEqual([first.status, second.status].sort(), [202, 429], JSON.stringify([first.body, second.body]));
      const refused = first.status === 429 ? first : second;
      assert.equal(refused.body.error.code, 'RATE_LIMITED');
      const progress = await t.admin.request('GET', '/database/data-integrity-results');
      assert.equal(progress.body.data.fixingErrors, first.status === 429, 'the running one is the one accepted');
      await checkSettled(t.app.runtime);
      assert.equal(
        (await t.admin.request('POST', '/database/fix-data-integrity')).status,
        202,
        'free again once it ended',
      );
      await checkSettled(t.app.runtime);
    });

    it('is for admins only', async () => {
      for (const [method, p] of [
        ['POST', '/database/check-data-integrity'],
        ['POST', '/database/fix-data-integrity'],
        ['GET', '/database/data-integrity-results'],
        ['POST', '/database/snapshot'],
      ]) {
        assert.equal((await t.user.request(method, p)).status, 401, p);
        assert.equal((await t.anonymous.request(method, p)).status, 401, p);
      }
    });

    it(
      store === 'postgres'
        ? "refuses a snapshot, saying backups are the database server's job"
        : 'refuses a snapshot of an in-memory database',
      async () => {
        const res = await t.admin.request('POST', '/database/snapshot');
        assert.equal(res.status, 501);
        assert.equal(res.body.error.code, 'SNAPSHOT_NOT_SUPPORTED');
        assert.match(res.body.error.message, store === 'postgres' ? /pg_dump/ : /in memory/);
      },
    );
  });
}

describe('database snapshot (SQLite file)', () => {
  let dir: string;
  let app: Controller;
  let token: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ctl-snapshot-'));
    const adminPassword = `Admin-${randomBytes(6).toString('hex')}`;
    app = await createController({
      dataDir: dir,
      publicUrl: 'https://127.0.0.1:1',
      pki: await loadOrCreatePki(await sharedTestPki(), { hosts: ['127.0.0.1'] }),
      store: { sqlite: path.join(dir, 'ctl.db') },
      adminPassword,
      passwordCost: TEST_PASSWORD_COST,
    });
    const login = await app.inject({
      method: 'POST',
      url: '/edge/management/v1/authenticate?method=password',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ username: 'admin', password: adminPassword }),
    });
    token = login.json().data.token;
  });
  after(async () => {
    await app?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const snapshot = () =>
    app.inject({ method: 'POST', url: '/edge/management/v1/database/snapshot', headers: { 'zt-session': token } });

  it('copies the database beside itself, owner-only, named like OpenZiti snapshots; at most one a minute', async () => {
    const res = await snapshot();
    assert.equal(res.statusCode, 200, res.body);
    validateResponse('management', 'POST', '/database/snapshot', 200, res.json());
    const file: string = res.json().data.path;
    assert.equal(path.dirname(file), dir);
    assert.match(path.basename(file), /^ctl\.db-\d{8}-\d{6}$/);
    assert.equal((await stat(file)).mode & 0o777, 0o600, 'it holds password hashes');
    const copy = new Database(file, { readonly: true });
    try {
      const row = copy.prepare('SELECT count(*) AS n FROM "identities" WHERE "isDefaultAdmin" = 1').get() as {
        n: number;
      };
      assert.equal(row.n, 1, 'the copy is a working database with the data');
    } finally {
      copy.close();
    }
    const again = await snapshot();
    assert.equal(again.statusCode, 429);
    assert.equal(again.json().error.code, 'RATE_LIMITED');
  });
});
