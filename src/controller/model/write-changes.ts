import type { Write } from '../runtime.js';

/**
 * A value as compared across a write: absent, null and an empty list are one "nothing"
 * (role sets are stored either way).
 */
const canonical = (v: unknown) => JSON.stringify(v === undefined || (Array.isArray(v) && v.length === 0) ? null : v);

/**
 * Whether an update gives one of these fields another value than the row had (a create updates nothing). What the
 * write hooks that follow a write's consequences (sessions ended, service update stamps) ask before doing any work.
 */
export function updatesAny(write: Pick<Write, 'existing' | 'values'>, fields: readonly string[]): boolean {
  const existing = write.existing;
  return (
    existing !== undefined &&
    fields.some((f) => f in write.values && canonical(write.values[f]) !== canonical(existing[f]))
  );
}
