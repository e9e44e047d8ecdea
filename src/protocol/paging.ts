/** Paging rules of list endpoints (wire-protocol section 3), shared by controller and CLI. */

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 500;
export const MAX_OFFSET = 100_000;
/**
 * The most rows one page returns when a client asks for all of them (`limit -1`, `limit none`): a bound on what
 * one request can make the controller hold in memory. A page cut short reports this limit, so clients page on.
 */
export const MAX_ALL_ROWS = 10_000;
/**
 * What `meta.pagination.limit` reports for an unlimited page: Go's max int64 (2^63 - 1), which a double cannot hold;
 * its nearest double is 2^63, the value a JSON reader of OpenZiti's answer gets too.
 */
export const UNLIMITED_REPORTED = 2 ** 63;

/**
 * Normalises a requested limit: absent, 0 or < -1 gives the default, above the maximum is clamped,
 * -1 means "all" (returned as undefined).
 */
export function normaliseLimit(limit: number | undefined): number | undefined {
  if (limit === undefined || limit === 0 || limit < -1) return DEFAULT_LIMIT;
  if (limit === -1) return undefined;
  return Math.min(limit, MAX_LIMIT);
}

export function normaliseOffset(offset: number | undefined): number {
  if (offset === undefined || offset < 0) return 0;
  return Math.min(offset, MAX_OFFSET);
}
