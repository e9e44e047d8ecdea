import type { ColumnDef } from '../../resources/types.js';
import { cell, truncate, valueAt } from './cells.js';
import type { Paint } from './paint.js';

/** Columns are separated by this many spaces; the table has no borders so that it reads well and greps well. */
const GAP = 2;
/** A column is never squeezed below this width (or its header's) to make a table fit the terminal. */
const MIN_WIDTH = 10;
/** Columns that are never cut: a cut name or id cannot be read back, copied or passed to the next command. */
const WHOLE = new Set(['id', 'name']);

const BORDERLESS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '',
  middle: ' '.repeat(GAP),
};

export interface TableOptions {
  wide: boolean;
  /** Terminal width: the widest columns are cut so that rows fit. Undefined off a terminal (never cut). */
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
export async function formatTable(rows: readonly unknown[], columns: readonly ColumnDef[], opts: TableOptions): Promise<string> {
  const visible = visibleColumns(columns, opts.wide);
  const head = visible.map((c) => c.header.toUpperCase());
  let body = rows.map((row) => visible.map((c) => cell(valueAt(row, c.field))));
  if (opts.width !== undefined) {
    const whole = visible.map((c) => WHOLE.has(c.field));
    const widths = fit(naturalWidths(head, body), head, opts.width, whole);
    body = body.map((cells) => cells.map((text, i) => truncate(text, widths[i])));
  }
  const { default: Table } = await import('cli-table3');
  const table = new Table({
    head: head.map((h) => opts.paint.bold(h)),
    chars: BORDERLESS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
  });
  table.push(...body);
  return table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}

function naturalWidths(head: string[], body: string[][]): number[] {
  return head.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i].length)));
}

/**
 * Narrows the widest columns, one character at a time, until the row fits or every column is at its minimum;
 * `whole` columns keep their natural width (the row then wraps in the terminal rather than lose them).
 */
export function fit(widths: number[], head: string[], available: number, whole: readonly boolean[] = []): number[] {
  const out = [...widths];
  const floor = out.map((w, i) => (whole[i] ? w : Math.min(w, Math.max(MIN_WIDTH, head[i].length))));
  let excess = out.reduce((a, b) => a + b, 0) + GAP * (out.length - 1) - available;
  while (excess > 0) {
    let widest = -1;
    for (let i = 0; i < out.length; i++) {
      if (out[i] > floor[i] && (widest < 0 || out[i] > out[widest])) widest = i;
    }
    if (widest < 0) break;
    out[widest]--;
    excess--;
  }
  return out;
}
