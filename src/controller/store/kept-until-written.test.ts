import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keptUntilWritten } from './kept-until-written.js';
import type { WriteEvent } from './repository.js';
import { Store } from './store.js';

describe('keptUntilWritten', () => {
  it('reads once, again after a write to a watched resource or outside repositories, not after others', async () => {
    const store = await Store.open({ sqlite: ':memory:' });
    try {
      let reads = 0;
      const count = keptUntilWritten(store, ['config'], async () => ++reads);
      const now = () => new Date().toISOString();
      assert.equal(await count(), 1);
      assert.equal(await count(), 1, 'kept');
      const typeId = await store.repo('config-type').insert({ name: 'other', schema: {} }, { now: now() });
      assert.equal(await count(), 1, 'a write to another resource keeps it');
      await store.repo('config').insert({ name: 'c', configTypeId: typeId, data: {} }, { now: now() });
      assert.equal(await count(), 2, 'read again after a watched write');
      store.changedOutsideRepositories();
      assert.equal(await count(), 3, 'read again after a change outside repositories');
    } finally {
      await store.close();
    }
  });

  it('does not keep a failed read', async () => {
    const store = await Store.open({ sqlite: ':memory:' });
    try {
      let calls = 0;
      const value = keptUntilWritten(store, [], async () => {
        calls++;
        if (calls === 1) throw new Error('unreachable');
        return 'ok';
      });
      await assert.rejects(value(), /unreachable/);
      assert.equal(await value(), 'ok');
    } finally {
      await store.close();
    }
  });
});

describe('keptUntilWritten beside other writers', () => {
  /** A store's write notices and cache epoch, as a test sets them; `write` tells its listeners of one. */
  function fakeStore(epoch: number | undefined, readsWaitForWrites = true) {
    const listeners: Array<(event: WriteEvent) => void> = [];
    return {
      onWrite: (listener: (event: WriteEvent) => void) => {
        listeners.push(listener);
      },
      readsWaitForWrites,
      cacheEpoch: epoch,
      write: (resource: string) => {
        for (const listener of listeners) listener({ resource, op: 'update' });
      },
    };
  }

  it('does not keep a read that a write of a watched resource overtook while it was on its way', async () => {
    const store = fakeStore(1);
    let reads = 0;
    let answer!: (value: number) => void;
    const count = keptUntilWritten(store, ['config'], () => {
      reads++;
      return reads === 1 ? new Promise<number>((resolve) => (answer = resolve)) : Promise.resolve(reads);
    });
    const first = count();
    store.write('config');
    answer(1);
    assert.equal(await first, 1, 'the caller that asked before the write has its answer');
    assert.equal(await count(), 2, 'read again: the write may have changed what the first read found');
  });

  it('reads again after a second where reads do not wait for open writes (PostgreSQL)', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: 0 });
    let reads = 0;
    const count = keptUntilWritten(fakeStore(1, false), ['config'], async () => ++reads);
    assert.equal(await count(), 1);
    t.mock.timers.tick(999);
    assert.equal(await count(), 1, 'kept within the second');
    t.mock.timers.tick(1);
    assert.equal(await count(), 2, 'a read that raced a commit is kept a second at most');
  });

  it('reads on every call while other processes may write unheard of', async () => {
    let reads = 0;
    const count = keptUntilWritten(fakeStore(undefined), ['config'], async () => ++reads);
    assert.equal(await count(), 1);
    assert.equal(await count(), 2, 'not kept: another controller may have written since');
  });

  it('reads again when this process became the one writer anew (another may have written meanwhile)', async () => {
    let reads = 0;
    const store = fakeStore(1);
    const count = keptUntilWritten(store, ['config'], async () => ++reads);
    assert.equal(await count(), 1);
    assert.equal(await count(), 1, 'kept while the epoch holds');
    store.cacheEpoch = 2;
    assert.equal(await count(), 2);
  });
});
