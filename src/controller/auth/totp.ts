import { randomBytes, timingSafeEqual } from 'node:crypto';
import { generateSecret, generateURI, verifySync } from 'otplib';

/**
 * TOTP as OpenZiti's controller and authenticator apps do it (RFC 6238): HMAC-SHA1, 6 digits, 30 s steps counted
 * from the Unix epoch. A code of up to `SKEW_STEPS` steps before or after the current one is accepted (OpenZiti's
 * window of 5 steps), for clocks that drift and people who type slowly.
 */
export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;
export const SKEW_STEPS = 2;
/** 160 bits, RFC 4226's recommendation (OpenZiti uses 80; authenticator apps take both). */
const SECRET_BYTES = 20;

export function newTotpSecret(): string {
  return generateSecret({ length: SECRET_BYTES });
}

/** The `otpauth://` URL an authenticator app reads from the QR code. */
export function provisioningUrl(issuer: string, accountName: string, secret: string): string {
  return generateURI({
    issuer,
    label: accountName,
    secret,
    algorithm: 'sha1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
  });
}

/** What a TOTP code looks like; anything else is not a TOTP code (it may still be a recovery code). */
export function looksLikeTotp(code: string): boolean {
  return /^[0-9]{6}$/.test(code);
}

/**
 * The time step `code` belongs to, if it is valid at `now` and of a step later than `afterStep` (a code of a step
 * already used is a replay, refused even within its validity); otherwise undefined.
 */
export function totpStep(secret: string, code: string, now: Date, afterStep: number): number | undefined {
  if (!looksLikeTotp(code)) return undefined;
  const result = verifySync({
    secret,
    token: code,
    algorithm: 'sha1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    epoch: Math.floor(now.getTime() / 1000),
    epochTolerance: SKEW_STEPS * TOTP_PERIOD_SECONDS,
    afterTimeStep: afterStep,
  });
  // A TOTP verification always reports its time step (the union type also covers HOTP's answers).
  return result.valid ? (result as { timeStep: number }).timeStep : undefined;
}

/** OpenZiti's recovery codes: 20 of them, 6 characters of RFC 4648 base32 (A-Z, 2-7) each. */
export const RECOVERY_CODE_COUNT = 20;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function newRecoveryCodes(): string[] {
  const one = (): string => {
    // 256 is a multiple of 32: every character is equally likely.
    const code = Array.from(randomBytes(6), (b) => BASE32[b & 31]).join('');
    // All digits would read as a TOTP code and never be tried as a recovery code: draw again (rarely needed).
    return /[A-Z]/.test(code) ? code : one();
  };
  return Array.from({ length: RECOVERY_CODE_COUNT }, one);
}

/** What a recovery code looks like (read without regard to case: people copy them by hand). */
export function normaliseRecoveryCode(code: string): string | undefined {
  const upper = code.trim().toUpperCase();
  return /^[A-Z2-7]{6}$/.test(upper) ? upper : undefined;
}

/**
 * The index of the stored code `code` matches, or -1. Every code is compared, in constant time each, so the time
 * taken says nothing about which code (or how much of one) matched. The shape of a code is no secret: what cannot
 * be one is refused at once.
 */
export function matchRecoveryCode(code: string, codes: readonly string[]): number {
  const normal = normaliseRecoveryCode(code);
  if (normal === undefined) return -1;
  const given = Buffer.from(normal);
  let found = -1;
  codes.forEach((stored, i) => {
    const candidate = Buffer.from(stored);
    if (candidate.length === given.length && timingSafeEqual(candidate, given) && found < 0) found = i;
  });
  return found;
}
