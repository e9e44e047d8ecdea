import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ColumnDef } from '../../resources/types.js';
import { fit, formatTable, visibleColumns } from './table.js';

const plain = { bold: (s: string) => s };
const columns: ColumnDef[] = [
  { header: 'ID', field: 'id' },
  { header: 'Name', field: 'name' },
  { header: 'Auth Policy', field: 'authPolicy.name', priority: 1 },
];
const rows = [
  { id: 'a1', name: 'laptop-7', authPolicy: { name: 'Default' } },
  { id: 'bb2', name: 'x', authPolicy: null },
];

describe('table', () => {
  it('prints upper-case headers and aligned columns without borders or trailing spaces', async () => {
    const text = await formatTable(rows, columns, { wide: false, paint: plain });
    assert.equal(text, ['ID   NAME', 'a1   laptop-7', 'bb2  x'].join('\n'));
  });

  it('adds priority-1 columns only when wide', async () => {
    assert.deepEqual(visibleColumns(columns, false).map((c) => c.header), ['ID', 'Name']);
    const text = await formatTable(rows, columns, { wide: true, paint: plain });
    assert.equal(text.split('\n')[0], 'ID   NAME      AUTH POLICY');
    assert.equal(text.split('\n')[1], 'a1   laptop-7  Default');
  });

  it('narrows the widest columns to fit a terminal, never below their floor', () => {
    assert.deepEqual(fit([4, 40, 12], ['ID', 'NAME', 'ATTRIBUTES'], 40), [4, 20, 12]);
    assert.deepEqual(fit([4, 40], ['ID', 'NAME'], 5), [4, 10]);
    assert.deepEqual(fit([4, 8], ['ID', 'NAME'], 80), [4, 8]);
  });

  it('cuts cells to the terminal width with an ellipsis', async () => {
    const long = [{ id: 'a1', name: 'n'.repeat(60) }];
    const text = await formatTable(long, columns, { wide: false, width: 30, paint: plain });
    for (const line of text.split('\n')) assert.ok(line.length <= 30, line);
    assert.match(text, /n…$/);
  });
});
