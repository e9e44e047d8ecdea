import assert from 'node:assert/strict';
import { describe as suite, it } from 'node:test';
import { describe } from './describe.js';

const plain = { bold: (s: string) => s };

suite('describe', () => {
  it('puts the given fields first, the rest alphabetically, and leaves out _links', () => {
    const lines = describe(
      { zeta: 1, name: 'laptop-7', id: 'a1', alpha: true, _links: { self: { href: '/x' } } },
      plain,
      ['id', 'name'],
    );
    assert.deepEqual(lines, ['id:    a1', 'name:  laptop-7', 'alpha: true', 'zeta:  1']);
  });

  it('indents nested objects and lists of objects, joins plain lists', () => {
    const lines = describe(
      {
        authPolicy: { name: 'Default', id: 'default' },
        roleAttributes: ['sales', 'emea'],
        items: [{ a: 1 }, { a: 2, b: 'x' }],
        tags: {},
      },
      plain,
    );
    assert.deepEqual(lines, [
      'authPolicy:',
      '  id:   default',
      '  name: Default',
      'items:',
      '  - a: 1',
      '  - a: 2',
      '    b: x',
      'roleAttributes: sales, emea',
      'tags:',
    ]);
  });

  it('escapes values and keys, and continues multi-line values on aligned lines', () => {
    const lines = describe({ note: 'line one\nline\u001b two', 'k\u0007': 'v' }, plain);
    assert.deepEqual(lines, ['k\\x07: v', 'note:  line one', '       line\\x1b two']);
  });
});
