import { InvalidArgumentError } from '@commander-js/extra-typings';
import { keepsLast } from '../completion/option-facts.js';

const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?$/;

/** `30m`, `2h`, `1d`, `1d12h` → minutes; at least one minute. */
export const parseMinutes = keepsLast((text: string): number => {
  const m = DURATION.exec(text.trim());
  if (!m || text.trim() === '') throw new InvalidArgumentError('expected a duration such as 30m, 2h, 1d or 1d12h.');
  const [days, hours, minutes] = [m[1], m[2], m[3]].map((part) => Number(part ?? 0));
  const total = days * 1440 + hours * 60 + minutes;
  if (total < 1 || !Number.isSafeInteger(total)) throw new InvalidArgumentError('must be at least 1m.');
  return total;
});
