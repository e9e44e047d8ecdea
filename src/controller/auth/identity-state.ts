import type { Row } from '../store/repository.js';

/**
 * An identity is disabled from `disabledAt` until `disabledUntil` (or for good when that is null). Takes a stored row
 * as it is read (fields unknown), so that callers need no cast.
 */
export function isDisabled(
  identity: Row | { disabledAt: string | null; disabledUntil: string | null },
  now: Date,
): boolean {
  if (!identity.disabledAt) return false;
  const until = identity.disabledUntil;
  return until === null || (typeof until === 'string' && Date.parse(until) > now.getTime());
}
