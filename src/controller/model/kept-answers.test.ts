import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WriteEvent } from '../store/repository.js';
import { type AnswerKept, KeptAnswers, RecentMisses } from './kept-answers.js';

/** A store that tells of the writes a test makes, with the epoch it sets. */
function fakeStore() {
  const listeners: ((event: WriteEvent) => void)[] = [];
  return {
    soleWriterEpoch: 0 as number | undefined,
    onWrite: (listener: (event: WriteEvent) => void) => listeners.push(listener),
    write: (resource: string) => {
      for (const listener of listeners) listener({ resource, op: 'update' });
    },
  };
}

/**
 * Kept answers over `store` whose read counts its calls and answers `{ id, n }`, n its call's number; `during`, when
 * set, runs inside the next read (a write told while it is under way).
 */
function keptOver(store: ReturnType<typeof fakeStore>, kept: AnswerKept, limits?: { count: number; chars: number }) {
  let calls = 0;
  const probe = { during: undefined as (() => void) | undefined };
  const read = async (id: string) => {
    const during = probe.during;
    probe.during = undefined;
    during?.();
    return { id, n: ++calls };
  };
  const answers = new KeptAnswers(() => store, kept, read, limits);
  return {
    probe,
    calls: () => calls,
    ask: async (id: string) => JSON.parse(await answers.answer(id)) as Record<string, unknown>,
  };
}

describe('kept answers by id', () => {
  it('keeps an answer once its id is asked for again, until a write to what it reads', async () => {
    const store = fakeStore();
    const { ask, calls } = keptOver(store, { readsFrom: ['identity', 'authenticator'] });
    assert.deepEqual(await ask('a'), { id: 'a', n: 1 });
    assert.deepEqual(await ask('a'), { id: 'a', n: 2 });
    assert.deepEqual(await ask('a'), { id: 'a', n: 2 }, 'kept at its second ask');
    store.write('service');
    assert.deepEqual(await ask('a'), { id: 'a', n: 2 }, 'a write to what it does not read');
    store.write('authenticator');
    assert.deepEqual(await ask('a'), { id: 'a', n: 3 });
    assert.deepEqual(await ask('a'), { id: 'a', n: 3 }, 'asked for lately: kept at once');
    store.write('*');
    assert.deepEqual(await ask('a'), { id: 'a', n: 4 }, 'a write of anything');
    assert.equal(calls(), 4);
  });

  it('does not keep an answer whose read overlapped a write', async () => {
    const store = fakeStore();
    const { ask, probe } = keptOver(store, { readsFrom: ['identity'] });
    await ask('a');
    // The write is told while the read is under way (on PostgreSQL it may have read the state before the commit).
    probe.during = () => store.write('identity');
    assert.deepEqual(await ask('a'), { id: 'a', n: 2 }, 'handed on to its request');
    assert.deepEqual(await ask('a'), { id: 'a', n: 3 }, 'not kept');
    assert.deepEqual(await ask('a'), { id: 'a', n: 3 }, 'kept once read with no write under way');
  });

  it('keeps nothing unless this controller is the one writer, and drops everything when that changes', async () => {
    const store = fakeStore();
    const { ask } = keptOver(store, { readsFrom: ['identity'] });
    store.soleWriterEpoch = undefined;
    for (let n = 1; n <= 3; n++) assert.deepEqual(await ask('a'), { id: 'a', n });
    store.soleWriterEpoch = 1;
    await ask('a');
    await ask('a');
    assert.deepEqual(await ask('a'), { id: 'a', n: 5 }, 'kept in epoch 1');
    store.soleWriterEpoch = 2;
    assert.deepEqual(await ask('a'), { id: 'a', n: 6 }, 'read again in epoch 2');
  });

  it('does not keep an answer the model says would change with time alone', async () => {
    const { ask } = keptOver(fakeStore(), { readsFrom: ['identity'], unless: (answer) => answer.id === 'turns' });
    for (let n = 1; n <= 3; n++) assert.deepEqual(await ask('turns'), { id: 'turns', n });
  });

  it('keeps at most its count and characters, the least recently asked going first', async () => {
    const { ask, calls } = keptOver(fakeStore(), { readsFrom: ['identity'] }, { count: 2, chars: 1_000 });
    for (const id of ['a', 'a', 'b', 'b', 'a', 'c', 'c']) await ask(id);
    assert.equal(calls(), 6, 'each id kept at its second ask; a answered once from what was kept');
    await ask('a');
    assert.equal(calls(), 6, 'a, asked for after b, is still kept');
    await ask('b');
    assert.equal(calls(), 7, 'b went when c came');
    const big = keptOver(fakeStore(), { readsFrom: ['identity'] }, { count: 2, chars: 10 });
    for (let n = 1; n <= 3; n++) assert.deepEqual(await big.ask('long-id'), { id: 'long-id', n });
    // Two answers of 16 characters each ({"id":"x","n":1}) within 40: a third makes the first asked go.
    const sized = keptOver(fakeStore(), { readsFrom: ['identity'] }, { count: 10, chars: 40 });
    for (const id of ['x', 'x', 'y', 'y']) await sized.ask(id);
    assert.equal(sized.calls(), 4);
    await sized.ask('x');
    await sized.ask('y');
    assert.equal(sized.calls(), 4, 'both kept');
    for (const id of ['z', 'z']) await sized.ask(id);
    await sized.ask('y');
    assert.equal(sized.calls(), 6, 'y still kept');
    await sized.ask('x');
    assert.equal(sized.calls(), 7, 'x went when z came');
  });

  it('refuses to be declared over a resource that does not exist, before any answer', () => {
    assert.throws(() => keptOver(fakeStore(), { readsFrom: ['identity', 'no-such-thing'] }), /no-such-thing/);
  });

  it('asks for its store at the first answer, not before', async () => {
    let asked = 0;
    const store = fakeStore();
    const answers = new KeptAnswers(
      () => {
        asked++;
        return store;
      },
      { readsFrom: ['identity'] },
      async (id) => ({ id }),
    );
    assert.equal(asked, 0);
    await answers.answer('a');
    await answers.answer('a');
    assert.equal(asked, 1);
  });
});

describe('recent misses', () => {
  it('says an id missed again within the window, not beyond it', () => {
    const misses = new RecentMisses(3);
    assert.equal(misses.again('a'), false);
    assert.equal(misses.again('b'), false);
    assert.equal(misses.again('a'), true, 'two misses later');
    for (const id of ['c', 'd', 'e']) misses.again(id);
    assert.equal(misses.again('a'), false, 'four misses later');
  });

  it('ids asked for in turn, more of them than the window, are never again', () => {
    const misses = new RecentMisses(1_000);
    const ids = Array.from({ length: 2_000 }, (_, i) => `identity-${i}`);
    let again = 0;
    for (let round = 0; round < 3; round++) for (const id of ids) if (misses.again(id)) again++;
    assert.equal(again, 0);
    for (let round = 0; round < 2; round++) for (const id of ids.slice(0, 500)) if (misses.again(id)) again++;
    // A turn within the window: the ids of its second round, but for the few that share a slot (500 ids in 4,096).
    assert.ok(again > 450 && again <= 500, `${again} of 500`);
  });

  it('counts on across 2^32 misses', () => {
    const misses = new RecentMisses(3);
    (misses as unknown as { misses: number }).misses = 2 ** 32 - 2;
    assert.equal(misses.again('a'), false);
    misses.again('b');
    misses.again('c');
    assert.equal(misses.again('a'), true, 'three misses later, across the wrap');
  });
});
