// What an authenticated read costs the database: on PostgreSQL every statement is a round trip, and on SQLite each
// has a cost of its own in the controller's process, so the statements of GET /identities/{id} are counted
// (docs/performance.md, "Throughput"). The read model must stay whole. A controller sharing its database with others
// keeps the session and facts too, at one statement more: the read of the write versions that tells it what the
// others changed. Each counted request follows a write to the identity, so that its answer is read from the store,
// not answered from one kept since the last write (model/kept-answers.ts); the last case counts a kept answer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { PG_URL_VARIABLE } from '../helpers/postgres.js';
import { Repository } from '../../src/controller/store/repository.js';

const noPostgres = process.env[PG_URL_VARIABLE] ? false : `${PG_URL_VARIABLE} is not set`;
const cases = [
  { kind: 'sqlite', shared: false },
  { kind: 'postgres', shared: false },
  { kind: 'postgres', shared: true },
] as const;

for (const { kind, shared } of cases) {
  const skip = kind === 'postgres' && noPostgres;
  describe(`statements per authenticated GET by id (${kind}${shared ? ', a shared database' : ''})`, { skip }, () => {
    let t: TestApp;
    let id: string;
    before(async () => {
      t = await createTestApp(kind, { sharedDatabase: shared });
      // An identity with something in every related table its read model gathers: an authenticator, an enrollment.
      const identity = { name: 'counted', type: 'User', isAdmin: false, enrollment: { ott: true } };
      id = (await t.admin.request('POST', '/identities', { json: identity })).body.data.id;
      const updb = { method: 'updb', identityId: id, username: 'counted', password: 'Counted-password-1' };
      await t.admin.request('POST', '/authenticators', { json: updb });
    });
    after(() => t.close());

    /**
     * Drops the answers kept of identities, as any write to one does, so that the next GET by id reads: a new
     * identity, since a new row changes no session the controller keeps (a change to one would make it read that).
     */
    let round = 0;
    const write = async () => {
      // Sharing its database, a controller keeps no answer; and a write would make it read its sessions again.
      if (shared) return;
      const json = { name: `dropping-${round++}`, type: 'User', isAdmin: false };
      assert.equal((await t.admin.request('POST', '/identities', { json })).status, 201);
    };

    // The row with what its read model gathers, in one statement; shared: one more, the read of the write versions.
    const most = shared ? 2 : 1;
    const title = `reads the row and what its read model gathers in ${most} statement(s): session kept, no transaction`;
    it(title, async () => {
      const store = t.app.runtime.store;
      const counts: number[] = [];
      // The fewest of a few requests: a value kept from the store (is any MFA enabled) may be read again meanwhile,
      // and the sessions' activity, written apart from requests every few seconds, may be written meanwhile.
      for (let i = 0; i < 4; i++) {
        await write();
        const before = store.statementsRun;
        const res = await t.admin.request('GET', `/identities/${id}`);
        counts.push(store.statementsRun - before);
        assert.equal(res.status, 200);
        assert.equal(res.body.data.authenticators.updb.username, 'counted');
        assert.ok(res.body.data.enrollment.ott.jwt, 'the enrollment is shown');
        assert.equal(res.body.data.hasApiSession, false);
      }
      // Every one read (the write before it dropped what was kept), the fewest in as many as the read takes.
      assert.ok(
        Math.min(...counts) >= 1 && Math.min(...counts) <= most,
        `statements per request: ${counts.join(', ')}`,
      );
    });

    it('makes its lookups once: a later GET by id only binds the id to them', async () => {
      assert.equal((await t.admin.request('GET', `/identities/${id}`)).status, 200);
      const made: string[] = [];
      const { lookup, distinctLookup } = Repository.prototype;
      Repository.prototype.lookup = function (this: Repository, ...args: Parameters<typeof lookup>) {
        made.push(`${this.def.name} lookup`);
        return lookup.apply(this, args);
      };
      Repository.prototype.distinctLookup = function (this: Repository, ...args: Parameters<typeof distinctLookup>) {
        made.push(`${this.def.name} distinct`);
        return distinctLookup.apply(this, args);
      };
      try {
        for (let i = 0; i < 3; i++) {
          await write();
          const before = t.app.runtime.store.statementsRun;
          const res = await t.admin.request('GET', `/identities/${id}`);
          assert.ok(t.app.runtime.store.statementsRun > before, 'read, not answered from what was kept');
          assert.equal(res.status, 200);
          assert.equal(res.body.data.authenticators.updb.username, 'counted');
          assert.ok(res.body.data.enrollment.ott.jwt, 'the enrollment is shown');
        }
      } finally {
        Object.assign(Repository.prototype, { lookup, distinctLookup });
      }
      assert.deepEqual(made, []);
    });

    it(`answers GET /current-identity (client API) in ${most} statement(s) too`, async () => {
      const store = t.app.runtime.store;
      const counts: number[] = [];
      for (let i = 0; i < 4; i++) {
        await write();
        const before = store.statementsRun;
        const res = await t.user.request('GET', '/edge/client/v1/current-identity');
        counts.push(store.statementsRun - before);
        assert.equal(res.status, 200);
        assert.equal(res.body.data.hasApiSession, true);
      }
      // Every one read (the write before it dropped what was kept), the fewest in as many as the read takes.
      assert.ok(
        Math.min(...counts) >= 1 && Math.min(...counts) <= most,
        `statements per request: ${counts.join(', ')}`,
      );
    });

    // Kept only while the controller is its database's one writer: sharing it, every GET by id reads.
    const kept = shared ? most : 0;
    it(`answers a GET by id asked again since the last write in ${kept} statement(s)`, async () => {
      const store = t.app.runtime.store;
      await write();
      const counts: number[] = [];
      for (let i = 0; i < 5; i++) {
        const before = store.statementsRun;
        const res = await t.admin.request('GET', `/identities/${id}`);
        counts.push(store.statementsRun - before);
        assert.equal(res.body.data.authenticators.updb.username, 'counted');
      }
      // The first reads; the answer is kept since its id was asked for before (a first ask keeps nothing). The
      // fewest of the others: the sessions' activity may be written meanwhile.
      assert.ok(
        counts[0] >= 1 && Math.min(...counts.slice(1)) === kept,
        `statements per request: ${counts.join(', ')}`,
      );
    });
  });
}
