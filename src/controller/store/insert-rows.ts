import type { Driver } from './driver.js';
import { quote } from './fragment.js';
import type { ColumnType } from './schema-model.js';

/** Rows per statement: each batch is one JSON parameter, kept to a size both databases parse at once. */
const ROWS_PER_STATEMENT = 1000;

/**
 * Inserts rows (one value per column, in order) in one statement per ROWS_PER_STATEMENT, whatever their number: the
 * write path of a batch (seeding, the side rows of many entities, the access index's matches), where a statement per
 * row would cost a round trip per row on PostgreSQL.
 */
export async function insertRows(
  driver: Driver,
  table: string,
  columns: ReadonlyArray<{ name: string; type: ColumnType }>,
  rows: readonly unknown[][],
): Promise<void> {
  const into = `INSERT INTO ${quote(table)} (${columns.map((c) => quote(c.name)).join(', ')}) `;
  const types = columns.map((c) => c.type);
  for (let at = 0; at < rows.length; at += ROWS_PER_STATEMENT) {
    const select = driver.dialect.jsonRows(types, JSON.stringify(rows.slice(at, at + ROWS_PER_STATEMENT)));
    await driver.run(into + select.sql, select.params);
  }
}
