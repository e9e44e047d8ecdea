import type { Driver } from './driver.js';

const TABLE = '"service_update_stamps"';

/** Rows written per statement: a policy may concern thousands of identities. */
const ROWS_PER_STATEMENT = 500;

/**
 * The service update stamps kept in the database, for controllers sharing one (the `service-update-stamp` resource):
 * a row per identity whose view changed, and `*` for a change every identity sees. A stamp only moves forward.
 */
export class ServiceUpdateStampRows {
  constructor(private readonly driver: Driver) {}

  /** Moves the stamps of `ids` to `atMs` where they are older, a few hundred rows a statement. */
  async touch(ids: readonly string[], atMs: number): Promise<void> {
    const iso = new Date(atMs).toISOString();
    for (let i = 0; i < ids.length; i += ROWS_PER_STATEMENT) {
      const batch = [...new Set(ids.slice(i, i + ROWS_PER_STATEMENT))];
      const rows = batch.map(() => `(?, ?, ?, '{}', 0, ?)`).join(', ');
      await this.driver.run(
        `INSERT INTO ${TABLE} ("id", "createdAt", "updatedAt", "tags", "isSystem", "changedAt") VALUES ${rows} ` +
          `ON CONFLICT ("id") DO UPDATE SET "changedAt" = excluded."changedAt", "updatedAt" = excluded."updatedAt" ` +
          `WHERE ${TABLE}."changedAt" < excluded."changedAt"`,
        batch.flatMap((id) => [id, iso, iso, atMs]),
      );
    }
  }

  /** The latest of the identity's stamp and the stamp every identity shares; undefined when neither was moved. */
  async latest(identityId: string): Promise<number | undefined> {
    const row = await this.driver.get<{ at: number | null }>(
      `SELECT max("changedAt") AS "at" FROM ${TABLE} WHERE "id" IN (?, '*')`,
      [identityId],
    );
    return row?.at == null ? undefined : Number(row.at);
  }

  async forget(identityId: string): Promise<void> {
    await this.driver.run(`DELETE FROM ${TABLE} WHERE "id" = ?`, [identityId]);
  }
}
