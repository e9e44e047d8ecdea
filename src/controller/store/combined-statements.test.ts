import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CombinedStatements } from './combined-statements.js';

const statement = (sql: string) => ({ sql, params: [] });

test('makes the value of a list of texts once, and another for any other list, the same first text included', () => {
  const made: string[] = [];
  const combined = new CombinedStatements<string>(10, 1_000, (value) => value.length);
  const get = (...texts: string[]) =>
    combined.get(texts.map(statement), () => {
      made.push(texts.join('+'));
      return texts.join('+');
    });
  assert.equal(get('a', 'b'), 'a+b');
  // Texts equal to those read before, though not the same strings: found by their content.
  assert.equal(get(['a'].join(''), 'b'), 'a+b');
  assert.equal(get('a', 'c'), 'a+c');
  assert.equal(get('a', 'b', 'c'), 'a+b+c');
  assert.equal(get('a'), 'a');
  assert.equal(get('a', 'b'), 'a+b');
  assert.deepEqual(made, ['a+b', 'a+c', 'a+b+c', 'a']);
});

test('keeps no more than its weight allows: what was forgotten is made again', () => {
  let makes = 0;
  const combined = new CombinedStatements<string>(10, 5, (value) => value.length);
  const get = (first: string, value: string) =>
    combined.get([statement(first), statement('x')], () => {
      makes++;
      return value;
    });
  get('a', 'aaa');
  get('b', 'bbb');
  assert.equal(makes, 2);
  get('b', 'bbb');
  assert.equal(makes, 2, 'the last one made is kept');
  get('a', 'aaa');
  assert.equal(makes, 3, 'the first one was let go for the second');
});
