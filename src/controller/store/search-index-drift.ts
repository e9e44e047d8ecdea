// The tables that filters read instead of the rows themselves, kept by triggers (dialects/sqlite.ts,
// dialects/postgres.ts): SQLite's substring indexes (an FTS5 table of a name's trigrams and the map of its rowids to
// entity ids), PostgreSQL's value counts of a set (how many owners hold each value). A trigger cannot be skipped by
// a write, but a hand edit, a restore of part of a database or a bug can leave them behind the rows: a `contains`
// filter then misses an entity, an `anyOf` count is wrong. Each is checked against the rows and, on fix, rebuilt.
import type { Driver } from './driver.js';
import { quote } from './fragment.js';
import type { IndexModel } from './schema-model.js';

/** What says what is wrong with one index, in words (nothing when it agrees with the rows). */
export type DriftCheck = () => Promise<string | undefined>;

/**
 * The check of an index that the driver's dialect keeps as a table of its own; none for any other index, which has
 * nothing to check here (chosen before a check opens its transaction, so that the others open none).
 */
export function searchIndexCheck(driver: Driver, index: IndexModel): DriftCheck | undefined {
  const dialect = driver.dialect.name;
  if (index.method === 'substring' && dialect === 'sqlite') return () => substringDrift(driver, index);
  if (index.method === 'valueCounts' && dialect === 'postgres') return () => valueCountsDrift(driver, index);
  return undefined;
}

/**
 * Rebuilds the index from the rows as a migration makes it: dropped with its triggers, then created and filled by
 * the dialect, in the check's transaction (which holds the table's writers off until it ends).
 */
export async function rebuildSearchIndex(driver: Driver, index: IndexModel): Promise<void> {
  await driver.exec(driver.dialect.dropIndex(index.name));
  await driver.exec(driver.dialect.createIndex(index));
}

function substringNames(index: IndexModel) {
  return {
    fts: quote(index.name),
    rows: quote(`${index.name}_rows`),
    entities: quote(index.table),
    text: quote(index.columns[0]),
  };
}

/**
 * Every entity has its rowid, every rowid its entity, and the FTS table holds exactly those rowids. The FTS table is
 * contentless, so the text it indexed for a rowid cannot be read back: a row indexed under an old name is not seen.
 */
async function substringDrift(driver: Driver, index: IndexModel): Promise<string | undefined> {
  const { fts, rows, entities } = substringNames(index);
  const counts = await driver.get<Record<'unmapped' | 'orphaned' | 'unindexed' | 'strays', number>>(
    `SELECT
      (SELECT count(*) FROM ${entities} e WHERE NOT EXISTS (SELECT 1 FROM ${rows} r WHERE r."id" = e."id")) AS unmapped,
      (SELECT count(*) FROM ${rows} r WHERE NOT EXISTS (SELECT 1 FROM ${entities} e WHERE e."id" = r."id")) AS orphaned,
      (SELECT count(*) FROM ${rows} r WHERE r."key" NOT IN (SELECT rowid FROM ${fts})) AS unindexed,
      (SELECT count(*) FROM ${fts} WHERE rowid NOT IN (SELECT "key" FROM ${rows})) AS strays`,
  );
  const said = [
    counts?.unmapped && `${counts.unmapped} row(s) of ${index.table} not indexed`,
    counts?.orphaned && `${counts.orphaned} entry(ies) for rows no longer there`,
    counts?.unindexed && `${counts.unindexed} entry(ies) without their text`,
    counts?.strays && `${counts.strays} text(s) indexed for no row`,
  ].filter(Boolean);
  if (said.length === 0) return undefined;
  return `substring index ${index.name} of ${index.table}.${index.columns[0]}: ${said.join(', ')}`;
}

/** Each value's count against the side table's rows; a value counted 0 is the same as a value not counted. */
async function valueCountsDrift(driver: Driver, index: IndexModel): Promise<string | undefined> {
  const [counts, side] = [quote(index.name), quote(index.table)];
  const wrong = await driver.all<{ value: string; held: number; counted: number }>(
    `SELECT coalesce(s."value", c."value") AS "value", coalesce(s.n, 0)::int AS held, coalesce(c."n", 0)::int AS counted
      FROM (SELECT "value", count(*) AS n FROM ${side} GROUP BY "value") s
      FULL JOIN ${counts} c ON c."value" = s."value"
      WHERE coalesce(s.n, 0) <> coalesce(c."n", 0)
      ORDER BY 1 LIMIT 6`,
  );
  if (wrong.length === 0) return undefined;
  const shown = wrong.slice(0, 5).map((w) => `${JSON.stringify(w.value)} held ${w.held}, counted ${w.counted}`);
  const more = wrong.length > 5 ? ', and more' : '';
  return `value counts ${index.name} of ${index.table}: ${shown.join('; ')}${more}`;
}
