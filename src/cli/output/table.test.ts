import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Table from 'cli-table3';
import fc from 'fast-check';
import type { ColumnDef } from '../../resources/types.js';
import { cell } from './cells.js';
import { paint } from './paint.js';
import { fit, formatTable, visibleColumns } from './table.js';

const plain = { bold: (s: string) => s };
/** cli-table3's border characters, all empty for a borderless table. */
const BORDER_CHARS = ['top', 'bottom', 'left', 'right', 'mid'].flatMap((edge) =>
  ['', '-mid', '-left', '-right'].map((part) => `${edge}${part}`),
);
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

  it('aligns wide (CJK) and emoji values by their width on the terminal, under bold headers', async () => {
    const wideRows = [
      { id: 'a1', name: '名前テスト', authPolicy: { name: 'Default' } },
      { id: 'bb2', name: '👩‍👩‍👧 family', authPolicy: { name: 'ｆｕｌｌ' } },
      { id: 'c3', name: 'plain', authPolicy: { name: 'e\u0301' } },
    ];
    const text = await formatTable(wideRows, columns, { wide: true, paint: await paint(true) });
    assert.equal(
      text,
      [
        '\u001b[1mID\u001b[22m   \u001b[1mNAME\u001b[22m        \u001b[1mAUTH POLICY\u001b[22m',
        'a1   名前テスト  Default',
        'bb2  👩‍👩‍👧 family   ｆｕｌｌ',
        'c3   plain       e\u0301',
      ].join('\n'),
    );
  });

  it('lays out Latin text byte for byte as cli-table3 does, padded columns two spaces apart', async () => {
    const bold = await paint(true);
    // Letters, digits, punctuation, spaces (NBSP too), Latin-1 and its extensions, and the ellipsis.
    const latin = fc.string({
      unit: fc.constantFrom(...'aZ09 -_.,:#@~\u00a0é\u00ffĀŁǅʼ\u02ff…'),
      maxLength: 14,
    });
    const table = fc.integer({ min: 1, max: 5 }).chain((count) =>
      fc.record({
        headers: fc.array(latin, { minLength: count, maxLength: count }),
        rows: fc.array(fc.array(latin, { minLength: count, maxLength: count }), { maxLength: 6 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(table, async ({ headers, rows }) => {
        const cols: ColumnDef[] = headers.map((header, i) => ({ header, field: `c${i}` }));
        const objects = rows.map((values) => Object.fromEntries(values.map((value, i) => [`c${i}`, value])));
        const byCliTable3 = new Table({
          head: headers.map((header) => bold.bold(header.toUpperCase())),
          chars: { ...Object.fromEntries(BORDER_CHARS.map((name) => [name, ''])), middle: '  ' },
          style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
        });
        byCliTable3.push(...rows.map((values) => values.map(cell)));
        const expected = byCliTable3
          .toString()
          .split('\n')
          .map((line) => line.trimEnd())
          .join('\n');
        assert.equal(await formatTable(objects, cols, { wide: false, paint: bold }), expected);
      }),
      { numRuns: 300 },
    );
  });

  it('adds priority-1 columns only when wide', async () => {
    assert.deepEqual(
      visibleColumns(columns, false).map((c) => c.header),
      ['ID', 'Name'],
    );
    const text = await formatTable(rows, columns, { wide: true, paint: plain });
    assert.equal(text.split('\n')[0], 'ID   NAME      AUTH POLICY');
    assert.equal(text.split('\n')[1], 'a1   laptop-7  Default');
  });

  it('narrows other columns to their header first, then names to 20, then others to 4, then names to 10', () => {
    const head = ['ID', 'NAME', 'ATTRIBUTES', 'ADMIN'];
    const roles = ['id', 'name', 'other', 'other'] as const;
    // 10 + 40 + 30 + 5 and three gaps: 91 columns.
    const natural = [10, 40, 30, 5];
    assert.deepEqual(fit(natural, head, 200, roles), natural);
    assert.deepEqual(fit(natural, head, 80, roles), [10, 40, 19, 5]);
    assert.deepEqual(fit(natural, head, 60, roles), [10, 29, 10, 5]);
    assert.deepEqual(fit(natural, head, 45, roles), [10, 20, 5, 4]);
    assert.deepEqual(fit(natural, head, 35, roles), [10, 11, 4, 4]);
    // Ids never give way: past the last stage the row is left to wrap.
    assert.deepEqual(fit(natural, head, 20, roles), [10, 10, 4, 4]);
  });

  it('cuts the rightmost (least important) of equally wide columns first', () => {
    assert.deepEqual(fit([8, 8], ['STRATEGY', 'DISABLED'], 17, ['other', 'other']), [8, 7]);
  });

  it('fits a 60-column terminal with ellipses, keeping the id whole and the name readable', async () => {
    const identityColumns: ColumnDef[] = [
      { header: 'ID', field: 'id' },
      { header: 'Name', field: 'name' },
      { header: 'Type', field: 'typeId' },
      { header: 'Attributes', field: 'roleAttributes' },
      { header: 'Admin', field: 'isAdmin' },
      { header: 'Disabled', field: 'disabled' },
    ];
    const long = [
      {
        id: 'id-'.padEnd(12, 'x'),
        name: 'Sales Phone 12 (Berlin office)',
        typeId: 'Default',
        roleAttributes: ['sales', 'emea', 'phones'],
        isAdmin: false,
        disabled: false,
      },
      { id: 'bb2', name: 'x', typeId: 'Default', roleAttributes: [], isAdmin: true, disabled: false },
    ];
    const text = await formatTable(long, identityColumns, { wide: false, width: 60, paint: plain });
    const lines = text.split('\n');
    for (const line of lines) assert.ok(line.length <= 60, `${line.length}: ${line}`);
    assert.ok(lines[1]!.startsWith(`${long[0]!.id}  Sales Phone`), lines[1]);
    assert.match(lines[1]!, /…/);
    // Nothing is cut off a terminal, nor with -o wide (which may wrap, as asked).
    for (const opts of [{ wide: false }, { wide: true, width: 60 }]) {
      const whole = await formatTable(long, identityColumns, { ...opts, paint: plain });
      assert.ok(whole.includes('Sales Phone 12 (Berlin office)') && whole.includes('sales, emea, phones'), whole);
    }
  });

  it('keeps reference ids whole and cuts reference names last', async () => {
    const cols: ColumnDef[] = [
      { header: 'Identity', field: 'identityId' },
      { header: 'Service', field: 'service.name' },
      { header: 'Note', field: 'note' },
    ];
    const row = { identityId: 'i'.repeat(20), service: { name: 's'.repeat(30) }, note: 'n'.repeat(30) };
    const [, line] = (await formatTable([row], cols, { wide: false, width: 50, paint: plain })).split('\n');
    assert.equal(line, `${'i'.repeat(20)}  ${'s'.repeat(19)}…  nnnnn…`);
  });
});
