import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openStoreForSuite, storesUnderTest } from '../../../test/helpers/postgres.js';
import type { Store } from '../store/store.js';
import { SharedServiceUpdateStamps } from './service-update-stamps.js';

for (const kind of storesUnderTest()) {
  describe(`SharedServiceUpdateStamps (${kind})`, () => {
    let store: Store;
    openStoreForSuite(kind, (opened) => (store = opened));

    it('per identity, one stamp for all, never backwards, seen by another controller on the database', async () => {
      const here = new SharedServiceUpdateStamps(store.serviceUpdateStamps);
      const there = new SharedServiceUpdateStamps(store.serviceUpdateStamps);
      const at = (time: string) => new Date(`2026-01-01T00:${time}Z`);
      assert.equal((await there.lastChangeAt('a')).getTime(), 0, 'never moved: raised to the session start');
      await here.touch(['a', 'a', 'c'], at('01:00'));
      assert.deepEqual(await there.lastChangeAt('a'), at('01:00'));
      assert.deepEqual(await there.lastChangeAt('c'), at('01:00'));
      assert.equal((await there.lastChangeAt('b')).getTime(), 0);
      await here.touch(['a'], at('00:30'));
      assert.deepEqual(await there.lastChangeAt('a'), at('01:00'), 'never backwards');
      await here.touchEveryone(at('02:00'));
      assert.deepEqual(await there.lastChangeAt('b'), at('02:00'));
      await here.touch(['a'], at('03:00'));
      assert.deepEqual(await there.lastChangeAt('a'), at('03:00'));
      await there.forget('a');
      assert.deepEqual(await here.lastChangeAt('a'), at('02:00'), 'forgotten: the stamp everyone shares');
    });
  });
}
