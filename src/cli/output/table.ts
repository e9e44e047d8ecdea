import type { ColumnDef } from '../../resources/types.js';
import { cell, truncate, valueAt } from './cells.js';
import type { Paint } from './paint.js';
import { isOneColumnEach } from './text-width.js';

/** Columns are separated by this many spaces; the table has no borders so that it reads well and greps well. */
const GAP = 2;
/** Ids (`id`, `identityId`, `service.id`) are never cut: a cut id cannot be copied or passed to the next command. */
const ID = /(^|\.)id$|[a-z]Id$/;
/** Names (`name`, `service.name`) are cut last, and never below 10 characters, so that rows stay recognisable. */
const NAME = /(^|\.)name$/;

/**
 * How far columns give way when a table is wider than the terminal, in order: each stage narrows the widest
 * column above its floor (the rightmost, least important, among equals) until the rows fit, then the next stage
 * starts. Other columns go to their header's width first, then names to 20 characters, then the other columns to
 * 4 (three characters and an ellipsis), then names to 10. What still does not fit wraps in the terminal.
 */
const STAGES: ReadonlyArray<(role: Role, header: number) => number> = [
  (role, header) => (role === 'other' ? Math.max(header, 6) : Infinity),
  (role) => (role === 'name' ? 20 : Infinity),
  (role) => (role === 'other' ? 4 : Infinity),
  (role) => (role === 'name' ? 10 : Infinity),
];

/** What a column is to the fitting: an id (kept whole), a name (cut last) or anything else. */
export type Role = 'id' | 'name' | 'other';

const BORDERLESS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: ' '.repeat(GAP),
};

export interface TableOptions {
  /** Adds the secondary columns, every value whole: wide rows may wrap, as asked. */
  wide: boolean;
  /** Terminal width: columns are cut so that rows fit (see STAGES). Undefined off a terminal (never cut). */
  width?: number;
  paint: Paint;
}

export function visibleColumns(columns: readonly ColumnDef[], wide: boolean): ColumnDef[] {
  return columns.filter((c) => wide || (c.priority ?? 0) === 0);
}

/**
 * Renders rows as a borderless table with upper-case headers. Callers never pass zero rows: an empty result
 * prints no header at all.
 */
export async function formatTable(
  rows: readonly unknown[],
  columns: readonly ColumnDef[],
  opts: TableOptions,
): Promise<string> {
  const visible = visibleColumns(columns, opts.wide);
  let head = visible.map((c) => c.header.toUpperCase());
  let body = rows.map((row) => visible.map((c) => cell(valueAt(row, c.field))));
  if (opts.width !== undefined && !opts.wide) {
    const roles = visible.map((c): Role => (ID.test(c.field) ? 'id' : NAME.test(c.field) ? 'name' : 'other'));
    const widths = fit(naturalWidths(head, body), head, opts.width, roles);
    head = head.map((text, i) => truncate(text, widths[i]));
    body = body.map((cells) => cells.map((text, i) => truncate(text, widths[i])));
  }
  const painted = head.map((h) => opts.paint.bold(h));
  // No columns at all: cli-table3 prints no line, not one per row.
  const latin = head.length > 0 && [head, ...body].every((texts) => texts.every(isOneColumnEach));
  const text = latin ? layOut(head, painted, body) : await layOutWithCliTable3(painted, body);
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}

/**
 * The table of one-column characters (nearly every table), as cli-table3 lays it out in this style: each column
 * as wide as its widest text, each text padded on the right, GAP spaces between. cli-table3's general layout
 * (spans, wrapping, borders, options merged per cell) was most of what printing a ten-row list cost.
 */
function layOut(head: string[], painted: string[], body: string[][]): string {
  // cli-table3 gives an empty column one space.
  const widths = naturalWidths(head, body).map((width) => Math.max(width, 1));
  const line = (texts: string[], shown = texts) =>
    shown.map((text, i) => text + ' '.repeat(widths[i] - texts[i].length)).join(' '.repeat(GAP));
  return [line(head, painted), ...body.map((texts) => line(texts))].join('\n');
}

/** Text of other widths (wide, emoji, combining): cli-table3 measures it with string-width. */
async function layOutWithCliTable3(head: string[], body: string[][]): Promise<string> {
  const { default: Table } = await import('cli-table3');
  const table = new Table({
    head,
    chars: BORDERLESS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
  });
  table.push(...body);
  return table.toString();
}

function naturalWidths(head: string[], body: string[][]): number[] {
  return head.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i].length)));
}

/** The widths that make a row fit in `available` columns, narrowing stage by stage (STAGES); ids keep theirs. */
export function fit(
  widths: readonly number[],
  head: readonly string[],
  available: number,
  roles: readonly Role[],
): number[] {
  const out = [...widths];
  let excess = out.reduce((a, b) => a + b, 0) + GAP * (out.length - 1) - available;
  for (const stage of STAGES) {
    const floor = out.map((w, i) => (roles[i] === 'id' ? w : Math.min(w, stage(roles[i], head[i].length))));
    while (excess > 0) {
      let widest = -1;
      for (let i = 0; i < out.length; i++) {
        if (out[i] > floor[i] && (widest < 0 || out[i] >= out[widest])) widest = i;
      }
      if (widest < 0) break;
      out[widest]--;
      excess--;
    }
  }
  return out;
}
