// Store.readTogether: several lookups in one round trip read exactly what each lookup reads alone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, storesUnderTest, type TestDatabase } from '../../../test/helpers/postgres.js';
import { lookupOfValue } from './repository.js';
import { Store } from './store.js';

const now = new Date().toISOString();

for (const kind of storesUnderTest()) {
  describe(`Store.readTogether (${kind})`, () => {
    let store: Store;
    let db: TestDatabase | undefined;
    before(async () => {
      db = kind === 'postgres' ? await createTestDatabase({ migrated: true }) : undefined;
      store = await Store.open(db ? { postgres: db.url } : { sqlite: ':memory:' });
      const identities = store.repo('identity');
      // Text, integers, booleans, JSON, sets and nulls: every kind of value the store reads back.
      const a = { name: 'a', type: 'Default', isAdmin: true, roleAttributes: ['x', 'y'], tags: { k: 1, n: null } };
      await identities.insert(a, { id: 'ida', now });
      const b = { name: 'b', type: 'Default', isAdmin: false, externalId: 'ext-b', defaultHostingCost: 7 };
      await identities.insert(b, { id: 'idb', now });
      const updb = { method: 'updb', identityId: 'ida', username: 'a', password: 'x', salt: 'y' };
      await store.repo('authenticator').insert(updb, { id: 'auth-a', now });
      // A name with quotes, a backslash and characters outside ASCII: read back as stored.
      const cert = { method: 'cert', identityId: 'idb', username: 'b "\\ ü 𝄞', fingerprint: 'ff' };
      await store.repo('authenticator').insert(cert, { id: 'auth-b', now });
    });
    after(async () => {
      await store.close();
      await db?.drop();
    });

    it('decodes each lookup as its repository reads it alone, in one statement', async () => {
      const identities = store.repo('identity');
      const authenticators = store.repo('authenticator');
      const ids = ['ida', 'idb', 'nobody'];
      const columns = ['identityId', 'method', 'username'];
      const alone = [
        await identities.findAll({ id: ids }),
        await authenticators.findAll({ identityId: ids }, { columns }),
        await authenticators.findAll({ identityId: ['nobody'] }),
        await identities.distinct('isAdmin', { id: ids }),
      ];
      const before = store.statementsRun;
      const together = await store.readTogether([
        identities.lookup({ id: ids }),
        authenticators.lookup({ identityId: ids }, { columns }),
        authenticators.lookup({ identityId: ['nobody'] }),
        identities.distinctLookup('isAdmin', { id: ids }),
      ] as const);
      assert.equal(store.statementsRun - before, 1, 'statements');
      const sorted = (values: unknown[]) => [...values].sort();
      assert.deepEqual([...together.slice(0, 3), sorted(together[3])], [...alone.slice(0, 3), sorted(alone[3])]);
      assert.equal(together[0].length, 2);
      assert.deepEqual(together[0][0].roleAttributes, ['x', 'y']);
      assert.equal(together[0][1].defaultHostingCost, 7);
      assert.equal(together[0][1].disabledAt, null);
      assert.deepEqual(
        together[1].map((a) => [a.id, a.username]),
        [
          ['auth-a', 'a'],
          ['auth-b', 'b "\\ ü 𝄞'],
        ],
      );
    });

    it('reads with a lookup made once for one value what a lookup made for each value reads', async () => {
      const authenticators = store.repo('authenticator');
      const columns = ['identityId', 'method', 'username'];
      const made = authenticators.lookup({ identityId: [''] }, { columns });
      const ofIdentity = lookupOfValue(made);
      for (const id of ['ida', 'idb', 'nobody']) {
        const each = authenticators.lookup({ identityId: [id] }, { columns });
        const bound = ofIdentity(id);
        // The text the lookup made, with the value as its one parameter.
        assert.equal(bound.sql, made.sql);
        assert.deepEqual(bound.params, [id]);
        assert.deepEqual(await store.readTogether([bound] as const), await store.readTogether([each] as const));
      }
      const row = lookupOfValue(store.repo('identity').findLookup(''));
      const [found, missing] = await store.readTogether([row('ida'), row('nobody')] as const);
      assert.equal(found?.name, 'a');
      assert.equal(missing, undefined);
    });

    it('reads by one key asked for at once (concurrent requests) each read what it reads alone', async () => {
      const identity = lookupOfValue(store.repo('identity').findLookup(''));
      const owned = lookupOfValue(store.repo('authenticator').lookup({ identityId: [''] }));
      const readOf = (id: string) => store.readTogether([identity(id), owned(id)] as const);
      const keys = ['ida', 'idb', 'nobody', 'ida', 'idb'];
      const alone = [];
      for (const key of keys) alone.push(await readOf(key));
      const before = store.statementsRun;
      const together = await Promise.all(keys.map(readOf));
      // PostgreSQL: one statement for all the keys; SQLite has no round trip to share, and reads each in turn.
      assert.equal(store.statementsRun - before, kind === 'postgres' ? 1 : keys.length, 'statements');
      assert.deepEqual(together, alone);
      assert.equal(together[0][0]?.name, 'a');
      assert.equal(together[2][0], undefined);
      // Two reads of one key are given objects of their own: a presenter adding a field to one leaves the other.
      assert.notEqual(together[0][0], together[3][0]);
      assert.notEqual(together[0][1][0], together[3][1][0]);
    });

    it("reads a key the database cannot take on its own: its failure is not the others' gathered with it", async () => {
      const identity = lookupOfValue(store.repo('identity').findLookup(''));
      const owned = lookupOfValue(store.repo('authenticator').lookup({ identityId: [''] }));
      const readOf = (id: string) => store.readTogether([identity(id), owned(id)] as const);
      const [good, bad, lone] = await Promise.allSettled([readOf('ida'), readOf('nul\u0000'), readOf('\ud800')]);
      assert.equal(good.status, 'fulfilled');
      assert.equal(good.value[0]?.name, 'a');
      // SQLite finds nothing by such keys; PostgreSQL refuses NUL in a text, for that read alone, and reads an
      // unpaired surrogate as the replacement character pg encodes it as.
      assert.deepEqual(lone, { status: 'fulfilled', value: [undefined, []] });
      if (kind === 'sqlite') assert.deepEqual(bad, { status: 'fulfilled', value: [undefined, []] });
      else assert.equal(bad.status, 'rejected');
    });

    it('reads by one key again, once, when the connection it went on was ended', {
      skip: kind !== 'postgres',
    }, async () => {
      const identity = lookupOfValue(store.repo('identity').findLookup(''));
      const owned = lookupOfValue(store.repo('authenticator').lookup({ identityId: [''] }));
      const readOf = (id: string) => store.readTogether([identity(id), owned(id)] as const);
      // What pg reports for a statement on a connection the server ended (pg_terminate_backend, a restart), and for
      // one PostgreSQL refused: only the first is a reason to read again.
      const ended = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
      const refused = Object.assign(new Error('relation does not exist'), { code: '42P01' });
      // The connections statements outside a transaction go on: the first statement sent fails as told.
      type Held = { run: (...args: unknown[]) => Promise<unknown> };
      const held = (store as unknown as { driver: { held: Held } }).driver.held;
      const run = held.run;
      await readOf('ida'); // the gathered statement's columns learnt, so the next statement sent is the read
      const failingFirst = async (err: Error, read: () => Promise<unknown>) => {
        let calls = 0;
        held.run = function (this: unknown, ...args: unknown[]) {
          return calls++ === 0 ? Promise.reject(err) : run.apply(this, args);
        };
        try {
          return { read: await read().catch((e: unknown) => e), calls };
        } finally {
          held.run = run;
        }
      };
      const again = await failingFirst(ended, () => Promise.all([readOf('ida'), readOf('idb')]));
      assert.equal(again.calls, 2, 'read once more');
      assert.deepEqual(
        (again.read as [{ name: string }][]).map(([row]) => row.name),
        ['a', 'b'],
      );
      // A shape read for the first time learns its columns first: that statement is read again too.
      const fresh = await failingFirst(ended, () => store.readTogether([owned('ida'), identity('ida')] as const));
      assert.equal((fresh.read as [unknown, { name: string }])[1]?.name, 'a', String(fresh.read));
      const once = await failingFirst(refused, () => readOf('ida'));
      assert.equal(once.calls, 1, 'not read again');
      assert.equal(once.read, refused);
      // A new shape whose columns could not be learnt is learnt again by its next read, not failed for good.
      const poisoned = () => store.readTogether([owned('ida'), identity('ida'), owned('ida')] as const);
      assert.equal((await failingFirst(refused, poisoned)).read, refused);
      assert.equal((await poisoned())[1]?.name, 'a');
    });

    it('reads by one key inside a transaction on its connection, seeing what it wrote', async () => {
      const identity = lookupOfValue(store.repo('identity').findLookup(''));
      const owned = lookupOfValue(store.repo('authenticator').lookup({ identityId: [''] }));
      const read = await store
        .tx(async () => {
          await store.repo('identity').insert({ name: 'c', type: 'Default', isAdmin: false }, { id: 'idc', now });
          const [seen] = await Promise.all([store.readTogether([identity('idc'), owned('idc')] as const)]);
          throw Object.assign(new Error('rolled back'), { seen });
        })
        .catch((err: { seen: unknown }) => err.seen);
      assert.equal((read as [{ name: string }])[0].name, 'c');
      assert.equal((await store.readTogether([identity('idc'), owned('idc')] as const))[0], undefined);
    });

    it('refuses to make a lookup of one value of a lookup of several parameters', () => {
      const lookup = store.repo('identity').lookup({ name: 'a', isAdmin: true });
      assert.throws(() => lookupOfValue(lookup), /not a lookup of one parameter/);
    });
  });
}
