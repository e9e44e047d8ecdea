import type { Driver } from './driver.js';

/**
 * API sessions' last activity, written for many sessions in one statement (bound as one JSON parameter, so one
 * prepared text whatever their number). A time only moves forward: a later one, written by another controller
 * sharing the database, is kept. Bookkeeping: `updatedAt` stays, and no repository write is told (Store.onWrite),
 * so caches of sessions stay valid.
 */
export class SessionActivityRows {
  constructor(private readonly driver: Driver) {}

  /** Sets each session's `lastActivityAt` to its time (ISO 8601, UTC) unless it is later already. */
  async write(latest: ReadonlyMap<string, string>): Promise<void> {
    if (latest.size === 0) return;
    const seen = this.driver.dialect.jsonRows(['text', 'text'], JSON.stringify([...latest]));
    await this.driver.run(
      `WITH "seen" ("id", "at") AS (${seen.sql}) UPDATE "api_sessions" SET "lastActivityAt" = "seen"."at" ` +
        `FROM "seen" WHERE "api_sessions"."id" = "seen"."id" AND "api_sessions"."lastActivityAt" < "seen"."at"`,
      seen.params,
    );
  }
}
