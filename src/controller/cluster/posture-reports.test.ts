import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createTestDatabase,
  openStoreForSuite,
  storesUnderTest,
  type TestDatabase,
} from '../../../test/helpers/postgres.js';
import {
  apiSessionPostureIn,
  ClientState,
  type FailedServiceRequest,
  type PostureData,
  type PostureReports,
} from '../client-state.js';
import { Store } from '../store/store.js';
import { SharedPostureReports } from './posture-reports.js';

const at = (time: string) => new Date(`2026-01-01T00:${time}Z`);

const refusal = (serviceId: string): FailedServiceRequest => ({
  apiSessionId: 's1',
  serviceId,
  serviceName: serviceId,
  sessionType: 'Dial',
  when: at('00:00').toISOString(),
  policyFailures: [],
});

/** The same contract for both: `here` and `there` are two controllers (the same one when kept in memory). */
function contract(reports: () => { here: PostureReports; there: PostureReports }) {
  it('a report kept whole (times, maps, API sessions) and read where it was not made', async () => {
    const { here, there } = reports();
    assert.equal(await there.read('i1'), undefined, 'never reported');
    const process = { postureCheckId: 'p', lastUpdatedAt: at('01:00'), path: '/bin/x', isRunning: true };
    await here.update('i1', (data) => {
      data.os = { postureCheckId: 'o', lastUpdatedAt: at('01:00'), type: 'Linux', version: '6.1.0', build: '' };
      data.mac = { postureCheckId: 'm', lastUpdatedAt: at('01:00'), addresses: ['001122aabbcc'] };
      const report = { ...process, binaryHash: 'ab', signerFingerprints: ['cd'] };
      data.processes.set('p', report);
      data.processesByPath.set('/bin/x', report);
      apiSessionPostureIn(data, 's1').wokenAt = at('01:30');
    });
    await there.update('i1', (data) => {
      apiSessionPostureIn(data, 's1').mfaPassedAt = at('02:00');
      data.domain = { postureCheckId: 'd', lastUpdatedAt: at('02:00'), domain: 'corp' };
    });
    const read = (await here.read('i1'))!;
    assert.equal(read.os?.type, 'Linux');
    assert.deepEqual(read.os?.lastUpdatedAt, at('01:00'));
    assert.deepEqual(read.mac?.addresses, ['001122aabbcc']);
    assert.equal(read.domain?.domain, 'corp', 'the second report joins the first');
    assert.deepEqual(read.processes.get('p')?.signerFingerprints, ['cd']);
    assert.deepEqual(read.processesByPath.get('/bin/x')?.lastUpdatedAt, at('01:00'));
    assert.deepEqual(read.apiSessions.get('s1')?.wokenAt, at('01:30'));
    assert.deepEqual(read.apiSessions.get('s1')?.mfaPassedAt, at('02:00'));
  });

  it('reports made at once on both are all kept', async () => {
    const { here, there } = reports();
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? here : there).update('i2', (data) => {
          apiSessionPostureIn(data, `s${i}`).wokenAt = at('03:00');
        }),
      ),
    );
    assert.equal((await here.read('i2'))?.apiSessions.size, 10);
  });

  it('refusals: the latest 50, oldest first; a deleted identity forgotten with its posture', async () => {
    const { here, there } = reports();
    for (let i = 0; i < 52; i++) await (i % 2 ? here : there).recordFailure('i3', refusal(`svc-${i}`));
    await here.update('i3', (data) => {
      data.domain = { postureCheckId: 'd', lastUpdatedAt: at('04:00'), domain: 'kept' };
    });
    const kept = await there.failuresOf('i3');
    assert.deepEqual(
      kept.map((f) => f.serviceId),
      Array.from({ length: 50 }, (_, i) => `svc-${i + 2}`),
    );
    assert.equal((await there.read('i3'))?.domain?.domain, 'kept', 'a report leaves the refusals as they were');
    await there.forgetIdentity('i3');
    assert.equal(await here.read('i3'), undefined);
    assert.deepEqual(await here.failuresOf('i3'), []);
  });
}

describe('posture reports kept in memory (ClientState)', () => {
  const alone = new ClientState(new Date());
  contract(() => ({ here: alone, there: alone }));
});

for (const kind of storesUnderTest()) {
  describe(`SharedPostureReports (${kind})`, () => {
    let store: Store;
    openStoreForSuite(kind, (opened) => (store = opened));
    contract(() => ({ here: new SharedPostureReports(store), there: new SharedPostureReports(store) }));
  });
}

describe('SharedPostureReports on two controllers (postgres)', {
  skip: !storesUnderTest().includes('postgres'),
}, () => {
  let db: TestDatabase;
  const stores: Store[] = [];
  before(async () => {
    db = await createTestDatabase({ migrated: true });
    for (let i = 0; i < 2; i++) stores.push(await Store.open({ postgres: db.url }, { sharedDatabase: true }));
  });
  after(async () => {
    for (const store of stores) await store.close();
    await db?.drop();
  });

  it("one identity's report held open keeps another's waiting on neither controller", { timeout: 30_000 }, async () => {
    const [here, there] = stores.map((store) => new SharedPostureReports(store));
    const woken = (session: string) => (data: PostureData) => {
      apiSessionPostureIn(data, session).wokenAt = at('05:00');
    };
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let reported!: () => void;
    const inside = new Promise<void>((resolve) => (reported = resolve));
    // A report of i4 whose transaction stays open (its lock held) until released.
    const held = stores[0].tx(async () => {
      await here.update('i4', woken('s1'));
      reported();
      await released;
    });
    await inside;
    // Under one lock for every identity these would wait for the held transaction, which waits for them.
    await there.update('i5', woken('s1'));
    await there.recordFailure('i6', refusal('svc'));
    let sameDone = false;
    const same = there.update('i4', woken('s2')).then(() => (sameDone = true));
    await there.update('i7', woken('s1'));
    assert.equal(sameDone, false, 'a report of the same identity waits for the one held open');
    release();
    await Promise.all([held, same]);
    assert.deepEqual([...(await there.read('i4'))!.apiSessions.keys()].sort(), ['s1', 's2'], 'both reports kept');
  });
});
