import type { ColumnDef, ResourceDef } from '../../resources/types.js';
import { commonJs } from '../../protocol/commonjs.js';
import type { IO } from '../../console/io.js';
import { valueAt } from './cells.js';
import { describe } from './describe.js';
import type { OutputFormat } from './formats.js';
import { paint } from './paint.js';
import { formatTable } from './table.js';

export interface ListRenderOptions {
  format: OutputFormat;
  columns: readonly ColumnDef[];
  /** Print only ids, one per line, whatever the format. */
  quiet?: boolean;
  /** Note printed on stderr (tables and -q) when there are no rows, e.g. `no identities found`. */
  empty?: string;
}

/**
 * Prints a list on stdout: the array and nothing else for json and yaml, a table for humans. An empty table or -q
 * list prints nothing on stdout (no header either) and a note on stderr; it is not an error.
 */
export async function render(io: IO, rows: readonly unknown[], opts: ListRenderOptions): Promise<void> {
  if (opts.quiet) {
    for (const row of rows) io.out(String(valueAt(row, 'id') ?? ''));
    if (rows.length === 0) io.info(opts.empty ?? 'no results');
    return;
  }
  if (opts.format === 'json' || opts.format === 'yaml') {
    io.out(await serialise(rows, opts.format));
    return;
  }
  if (rows.length === 0) {
    io.info(opts.empty ?? 'no results');
    return;
  }
  io.out(
    await formatTable(rows, opts.columns, {
      wide: opts.format === 'wide',
      width: io.width,
      paint: await paint(io.color),
    }),
  );
}

export interface OneRenderOptions {
  format: OutputFormat;
  /** The resource, for the fields `show` puts first. */
  def?: ResourceDef;
}

/** Prints one entity: as-is for json and yaml, as aligned key/value lines for humans. */
export async function renderOne(io: IO, entity: Record<string, unknown>, opts: OneRenderOptions): Promise<void> {
  if (opts.format === 'json' || opts.format === 'yaml') {
    io.out(await serialise(entity, opts.format));
    return;
  }
  io.out(describe(entity, await paint(io.color), opts.def?.cli?.showFirst ?? ['id', 'name']).join('\n'));
}

/** Prints ids as data (json or yaml): an array, so that `[]` says "none" and jq always gets a document. */
export async function renderIds(io: IO, ids: readonly string[], format: 'json' | 'yaml'): Promise<void> {
  io.out(await serialise(ids, format));
}

/** Data as JSON or YAML text, with no trailing line break. */
export async function serialise(data: unknown, format: 'json' | 'yaml'): Promise<string> {
  if (format === 'json') return JSON.stringify(data, null, 2);
  const { stringify } = commonJs(await import('yaml'));
  return stringify(data).trimEnd();
}
