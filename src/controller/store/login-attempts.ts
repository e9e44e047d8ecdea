import type { Driver } from './driver.js';

/** What a key has spent: in thousandths of an attempt, as of `at` (Unix milliseconds). */
export interface Spent {
  spent: number;
  at: number;
}

const TABLE = '"login_attempts"';

/**
 * Failed logins counted in the database, for controllers sharing one (the `login-attempt` resource): each key's
 * count is read and written by single statements, so attempts made on several controllers at once all count. A
 * count may refill with time: `refillPerMs` thousandths per millisecond are taken off what was spent before each
 * addition (0 for a count that only a success or a delete clears).
 */
export class LoginAttempts {
  constructor(private readonly driver: Driver) {}

  /**
   * Adds `amount` thousandths to `key`'s count (refilled first), in one statement; answers the count after. With a
   * `limit`, an addition that would take the count over it is not made (nothing is written): undefined.
   */
  async add(
    key: string,
    amount: number,
    nowMs: number,
    refillPerMs: number,
    limit?: number,
  ): Promise<number | undefined> {
    const iso = new Date(nowMs).toISOString();
    const refilled = `${TABLE}."spent" - CAST((excluded."at" - ${TABLE}."at") * CAST(? AS DOUBLE PRECISION) AS BIGINT)`;
    const after = `CASE WHEN ${refilled} > 0 THEN ${refilled} ELSE 0 END + excluded."spent"`;
    const within = limit === undefined ? '' : ` WHERE ${after} <= ?`;
    const row = await this.driver.get<{ spent: number }>(
      `INSERT INTO ${TABLE} ("id", "createdAt", "updatedAt", "tags", "isSystem", "spent", "at") ` +
        `VALUES (?, ?, ?, '{}', 0, ?, ?) ON CONFLICT ("id") DO UPDATE SET "spent" = ${after}, ` +
        `"at" = excluded."at", "updatedAt" = excluded."updatedAt"${within} RETURNING "spent"`,
      [
        key,
        iso,
        iso,
        amount,
        nowMs,
        refillPerMs,
        refillPerMs,
        ...(limit === undefined ? [] : [refillPerMs, refillPerMs, limit]),
      ],
    );
    if (row) return Number(row.spent);
    return limit === undefined ? amount : undefined;
  }

  /** The counts of `keys` that have one, by key, as last written. */
  async read(keys: readonly string[]): Promise<Map<string, Spent>> {
    const marks = keys.map(() => '?').join(', ');
    const rows = await this.driver.all<{ id: string; spent: number; at: number }>(
      `SELECT "id", "spent", "at" FROM ${TABLE} WHERE "id" IN (${marks})`,
      keys,
    );
    return new Map(rows.map((row) => [row.id, { spent: Number(row.spent), at: Number(row.at) }]));
  }

  async clear(key: string): Promise<void> {
    await this.driver.run(`DELETE FROM ${TABLE} WHERE "id" = ?`, [key]);
  }

  /** Forgets the counts under `prefix` last written before `beforeMs` (refilled long since); answers how many. */
  async forgetIdle(prefix: string, beforeMs: number): Promise<number> {
    const result = await this.driver.run(`DELETE FROM ${TABLE} WHERE substr("id", 1, ?) = ? AND "at" < ?`, [
      prefix.length,
      prefix,
      beforeMs,
    ]);
    return result.changes;
  }
}
