import type { Driver } from './driver.js';

const TABLE = '"posture_reports"';

/** An identity's row: its reported posture and its refused service requests, each as JSON text. */
export interface PostureReportRow {
  data: string;
  failures: string;
}

/**
 * The posture reports kept in the database, for controllers sharing one (the `posture-report` resource): a row per
 * identity that reported or was refused. Read and replaced whole: the caller holds the `posture-reports` lock for
 * the identity in its transaction from the read to the write, so two controllers' reports of it are both kept.
 */
export class PostureReportRows {
  constructor(private readonly driver: Driver) {}

  async read(identityId: string): Promise<PostureReportRow | undefined> {
    return this.driver.get<PostureReportRow>(`SELECT "data", "failures" FROM ${TABLE} WHERE "id" = ?`, [identityId]);
  }

  async write(identityId: string, row: PostureReportRow, at: Date): Promise<void> {
    const iso = at.toISOString();
    await this.driver.run(
      `INSERT INTO ${TABLE} ("id", "createdAt", "updatedAt", "tags", "isSystem", "data", "failures") ` +
        `VALUES (?, ?, ?, '{}', 0, ?, ?) ON CONFLICT ("id") DO UPDATE SET "data" = excluded."data", ` +
        `"failures" = excluded."failures", "updatedAt" = excluded."updatedAt"`,
      [identityId, iso, iso, row.data, row.failures],
    );
  }

  async forget(identityId: string): Promise<void> {
    await this.driver.run(`DELETE FROM ${TABLE} WHERE "id" = ?`, [identityId]);
  }
}
