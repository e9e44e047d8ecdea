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

  it('cuts other cells to the terminal width with an ellipsis, but never a name or an id', async () => {
    const cols: ColumnDef[] = [...columns, { header: 'Note', field: 'note' }];
    const long = [{ id: 'id-'.padEnd(25, 'x'), name: 'Sales Phone 12 (Berlin office)', note: 'n'.repeat(60) }];
    const text = await formatTable(long, cols, { wide: false, width: 70, paint: plain });
    const [, line] = text.split('\n');
    assert.ok(line!.includes('Sales Phone 12 (Berlin office)'), line);
    assert.ok(line!.includes(long[0]!.id), line);
    assert.match(line!, /n…$/);
    assert.deepEqual(fit([4, 40], ['ID', 'NAME'], 5, [true, true]), [4, 40]);
  });
});
