// KeyedReads: what the requests of one turn ask for by key goes in one statement; its answer, or its failure,
// reaches each of them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type KeyedRow, KeyedReads, type KeyedStatement, MOST_KEYS_A_STATEMENT } from './keyed-reads.js';

/** A statement that answers each key sent with one lookup's rows naming the key, and records what it was sent. */
function recording(
  answer: (keys: string[]) => Promise<KeyedRow[]> = async (keys) => keys.map(rowOf),
  mostKeys?: number,
) {
  const sent: { sql: string; keys: string[] }[] = [];
  const reads = new KeyedReads((sql, keys) => {
    sent.push({ sql, keys });
    return answer(keys);
  }, mostKeys);
  return { reads, sent };
}
const rowOf = (key: string): KeyedRow => ({ key, 0: JSON.stringify([[key]]) });
/** A statement of one lookup whose rows are made `{ of: key }`. */
const statement = (sql: string): KeyedStatement => ({ sql, makers: [(values) => ({ of: values[0] })] });
const [A, B] = [statement('A'), statement('B')];

describe('KeyedReads', () => {
  it('sends the reads of one turn as one statement per text, each key once', async () => {
    const { reads, sent } = recording();
    const asked = [reads.read(A, 'x'), reads.read(A, 'y'), reads.read(A, 'x'), reads.read(B, 'x')];
    const answers = await Promise.all(asked);
    assert.deepEqual(sent, [
      { sql: 'A', keys: ['x', 'y'] },
      { sql: 'B', keys: ['x'] },
    ]);
    assert.deepEqual(answers, [[[{ of: 'x' }]], [[{ of: 'y' }]], [[{ of: 'x' }]], [[{ of: 'x' }]]]);
    assert.notEqual(answers[0][0][0], answers[2][0][0], 'each read of a key is given objects of its own');
  });

  it('sends a turn of more keys than one statement takes as several, each read answered by its own', async () => {
    const { reads, sent } = recording(async (keys) => keys.map(rowOf), 2);
    const keys = ['v', 'w', 'x', 'w', 'y', 'z'];
    const answers = await Promise.all(keys.map((key) => reads.read(A, key)));
    assert.deepEqual(
      sent.map((s) => s.keys),
      [['v', 'w'], ['x', 'y'], ['z']],
    );
    assert.deepEqual(
      answers,
      keys.map((key) => [[{ of: key }]]),
    );
    // One part failing fails its own reads only.
    const failing = recording(async (keys) => {
      if (keys.includes('y')) throw new Error('part failed');
      return keys.map(rowOf);
    }, 2);
    const settled = await Promise.allSettled(keys.map((key) => failing.reads.read(A, key)));
    assert.deepEqual(
      settled.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled'],
    );
  });

  it('sends at most MOST_KEYS_A_STATEMENT keys a statement by default', async () => {
    const { reads, sent } = recording();
    const keys = Array.from({ length: MOST_KEYS_A_STATEMENT + 1 }, (_, i) => `k${i}`);
    await Promise.all(keys.map((key) => reads.read(A, key)));
    assert.deepEqual(
      sent.map((s) => s.keys.length),
      [MOST_KEYS_A_STATEMENT, 1],
    );
  });

  it('sends a read of a later turn in a statement of its own', async () => {
    const { reads, sent } = recording();
    await reads.read(A, 'x');
    await nextTurn();
    await reads.read(A, 'y');
    assert.deepEqual(
      sent.map((s) => s.keys),
      [['x'], ['y']],
    );
  });

  it("fails every read of a statement that fails, with the statement's error", async () => {
    const { reads } = recording(async () => {
      throw new Error('connection lost');
    });
    const asked = [reads.read(A, 'x'), reads.read(A, 'y')];
    for (const read of await Promise.allSettled(asked)) {
      assert.equal(read.status, 'rejected');
      assert.match(String(read.reason), /connection lost/);
    }
  });

  it("fails only the reads whose answer cannot be read, not another statement's reads of the turn", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { reads } = recording(async (keys) =>
        keys.map((key) => (key === 'bad' ? { key, 0: '[[unfinished' } : rowOf(key))),
      );
      const failing = statement('C');
      const [bad, good, other] = await Promise.allSettled([
        reads.read(failing, 'bad'),
        reads.read(failing, 'good'),
        reads.read(B, 'x'),
      ]);
      assert.equal(bad.status, 'rejected');
      assert.match(String((bad as PromiseRejectedResult).reason), /JSON/);
      assert.deepEqual(good, { status: 'fulfilled', value: [[{ of: 'good' }]] });
      assert.deepEqual(other, { status: 'fulfilled', value: [[{ of: 'x' }]] });
      const { reads: throwing } = recording();
      const broken: KeyedStatement = {
        sql: 'D',
        makers: [
          () => {
            throw new Error('a row of another shape');
          },
        ],
      };
      const [made] = await Promise.allSettled([throwing.read(broken, 'x')]);
      assert.match(String((made as PromiseRejectedResult).reason), /a row of another shape/);
      await nextTurn();
      assert.deepEqual(unhandled, [], 'nothing left for the process to die of');
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('fails a read whose key the answer left out, rather than answering it empty', async () => {
    const { reads } = recording(async (keys) => keys.filter((k) => k !== 'y').map(rowOf));
    const [x, y] = await Promise.allSettled([reads.read(A, 'x'), reads.read(A, 'y')]);
    assert.equal(x.status, 'fulfilled');
    assert.equal(y.status, 'rejected');
    assert.match(String((y as PromiseRejectedResult).reason), /answered no row for a key it was sent/);
  });
});
