import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WriteVersionWatch } from './write-version-watch.js';

/** A versions table a test sets, whose reads it lets finish one at a time. */
function versionsTable() {
  const versions = new Map<string, string>();
  const pending: Array<() => void> = [];
  let reads = 0;
  let away = false;
  const read = () => {
    reads++;
    const snapshot = new Map(versions);
    const failing = away;
    return new Promise<Map<string, string>>((resolve, reject) =>
      pending.push(() => (failing ? reject(new Error('the database is away')) : resolve(snapshot))),
    );
  };
  const finishOne = async () => {
    pending.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  };
  const goAway = (gone: boolean) => {
    away = gone;
  };
  return { versions, read, finishOne, reads: () => reads, goAway };
}

/** A watch over a fresh table, what it dropped, and one catch-up whose read the table finishes at once. */
function watching() {
  const table = versionsTable();
  const changed: string[] = [];
  const watch = new WriteVersionWatch(table.read, (resource) => changed.push(resource));
  const catchUp = async () => {
    const caught = watch.catchUp();
    await table.finishOne();
    await caught;
  };
  return { table, changed, watch, catchUp };
}

describe('WriteVersionWatch', () => {
  it('drops everything at its first read, then only what a moved version names', async () => {
    const { table, changed, catchUp } = watching();
    table.versions.set('identity', '1');
    await catchUp();
    assert.deepEqual(changed, ['*']);
    table.versions.set('identity', '2');
    table.versions.set('mfa', '1');
    await catchUp();
    assert.deepEqual(changed, ['*', 'identity', 'mfa']);
    await catchUp();
    assert.deepEqual(changed, ['*', 'identity', 'mfa'], 'nothing moved: nothing dropped');
  });

  it('a request arriving while a read is under way waits for a read begun after it, shared with others', async () => {
    const { table, changed, watch } = watching();
    const early = watch.catchUp();
    // A write acknowledged after the first read began: that read cannot have seen it.
    table.versions.set('auth-policy', '1');
    let lateDone = false;
    const late = watch.catchUp().then(() => (lateDone = true));
    const alsoLate = watch.catchUp();
    await table.finishOne();
    await early;
    assert.equal(lateDone, false, 'not answered by the read that began before it arrived');
    await table.finishOne();
    await Promise.all([late, alsoLate]);
    assert.deepEqual(changed, ['*', 'auth-policy']);
    assert.equal(table.reads(), 2, 'the requests that arrived together shared one read');
  });

  it('a version that went back (a database restored) drops what it names too', async () => {
    const { table, changed, catchUp } = watching();
    table.versions.set('identity', '7');
    await catchUp();
    table.versions.delete('identity');
    await catchUp();
    assert.deepEqual(changed, ['*', 'identity']);
  });

  it('versions that cannot be read drop everything kept, and the request goes on', async () => {
    const { table, changed, catchUp } = watching();
    table.versions.set('identity', '1');
    await catchUp();
    table.goAway(true);
    await catchUp();
    assert.deepEqual(changed, ['*', '*'], 'nothing kept answers while the versions cannot be read');
    table.goAway(false);
    await catchUp();
    assert.deepEqual(changed, ['*', '*', '*'], 'nor right after: what was kept meanwhile is dropped once more');
  });
});
