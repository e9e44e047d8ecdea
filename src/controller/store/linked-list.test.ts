import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Linked, LinkedList } from './linked-list.js';

interface Item extends Linked<Item> {
  name: number;
}

const item = (name: number): Item => ({ name, before: undefined, after: undefined });
const names = (list: LinkedList<Item>) => [...list].map((i) => i.name);

test('holds its items in the order appended, over random appends and removals, as an array does', () => {
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const list = new LinkedList<Item>();
  const model: Item[] = [];
  for (let step = 0; step < 2000; step++) {
    if (model.length > 0 && random(3) === 0) {
      const [taken] = model.splice(random(model.length), 1);
      list.unlink(taken);
      assert.equal(taken.before, undefined, 'an item taken out keeps no link');
      assert.equal(taken.after, undefined, 'an item taken out keeps no link');
    } else {
      const added = item(step);
      list.append(added);
      model.push(added);
    }
    assert.deepEqual(
      names(list),
      model.map((i) => i.name),
    );
    assert.equal(list.size, model.length);
    assert.equal(list.first, model[0]);
    assert.equal(list.last, model.at(-1));
  }
});

test('an item taken out as the walk reaches it does not end the walk', () => {
  const list = new LinkedList<Item>();
  for (let i = 0; i < 4; i++) list.append(item(i));
  const walked: number[] = [];
  for (const i of list) {
    walked.push(i.name);
    if (i.name % 2 === 0) list.unlink(i);
  }
  assert.deepEqual(walked, [0, 1, 2, 3]);
  assert.deepEqual(names(list), [1, 3]);
});
