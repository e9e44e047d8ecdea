// KeyedReads: what the requests of one turn ask for by key goes in one statement; its answer, or its failure,
// reaches each of them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type KeyedRow, KeyedReads } from './keyed-reads.js';

/** A statement that answers each key sent with one lookup's rows naming the key, and records what it was sent. */
function recording(answer: (keys: string[]) => Promise<KeyedRow[]> = async (keys) => keys.map(rowOf)) {
  const sent: { sql: string; keys: string[] }[] = [];
  const reads = new KeyedReads((sql, keys) => {
    sent.push({ sql, keys });
    return answer(keys);
  });
  return { reads, sent };
}
const rowOf = (key: string): KeyedRow => ({ key, 0: JSON.stringify([{ of: key }]) });

describe('KeyedReads', () => {
  it('sends the reads of one turn as one statement per text, each key once', async () => {
    const { reads, sent } = recording();
    const asked = [reads.read('A', 1, 'x'), reads.read('A', 1, 'y'), reads.read('A', 1, 'x'), reads.read('B', 1, 'x')];
    const answers = await Promise.all(asked);
    assert.deepEqual(sent, [
      { sql: 'A', keys: ['x', 'y'] },
      { sql: 'B', keys: ['x'] },
    ]);
    assert.deepEqual(answers, [[[{ of: 'x' }]], [[{ of: 'y' }]], [[{ of: 'x' }]], [[{ of: 'x' }]]]);
    assert.notEqual(answers[0][0][0], answers[2][0][0], 'each read of a key is given objects of its own');
  });

  it('sends a read of a later turn in a statement of its own', async () => {
    const { reads, sent } = recording();
    await reads.read('A', 1, 'x');
    await nextTurn();
    await reads.read('A', 1, 'y');
    assert.deepEqual(
      sent.map((s) => s.keys),
      [['x'], ['y']],
    );
  });

  it("fails every read of a statement that fails, with the statement's error", async () => {
    const { reads } = recording(async () => {
      throw new Error('connection lost');
    });
    const asked = [reads.read('A', 1, 'x'), reads.read('A', 1, 'y')];
    for (const read of await Promise.allSettled(asked)) {
      assert.equal(read.status, 'rejected');
      assert.match(String(read.reason), /connection lost/);
    }
  });

  it('fails a read whose key the answer left out, rather than answering it empty', async () => {
    const { reads } = recording(async (keys) => keys.filter((k) => k !== 'y').map(rowOf));
    const [x, y] = await Promise.allSettled([reads.read('A', 1, 'x'), reads.read('A', 1, 'y')]);
    assert.equal(x.status, 'fulfilled');
    assert.equal(y.status, 'rejected');
    assert.match(String((y as PromiseRejectedResult).reason), /answered no row for a key it was sent/);
  });
});
