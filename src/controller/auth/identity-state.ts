/** An identity is disabled from `disabledAt` until `disabledUntil` (or for good when that is null). */
export function isDisabled(identity: { disabledAt: string | null; disabledUntil: string | null }, now: Date): boolean {
  if (!identity.disabledAt) return false;
  return identity.disabledUntil === null || Date.parse(identity.disabledUntil) > now.getTime();
}
