/**
 * A TOTP generator for tests, written from RFC 6238 and RFC 4648 with node:crypto alone, so that the controller's
 * implementation (a library) is checked against something that shares no code with it.
 */
import { createHmac } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32, without padding, case-insensitive. */
export function base32Decode(text: string): Buffer {
  const clean = text.replace(/=+$/, '').toUpperCase();
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of clean) {
    const index = ALPHABET.indexOf(ch);
    if (index < 0) throw new Error(`not base32: ${ch}`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** RFC 4226 HOTP (dynamic truncation) over HMAC-SHA1 of the counter. */
export function hotp(key: Buffer, counter: number, digits = 6): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(message).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = ((mac[offset] & 0x7f) << 24) | (mac[offset + 1] << 16) | (mac[offset + 2] << 8) | mac[offset + 3];
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** RFC 6238 TOTP at Unix time `seconds`, 30-second steps. */
export function totpAt(key: Buffer, seconds: number, digits = 6): string {
  return hotp(key, Math.floor(seconds / 30), digits);
}

/** The secret of an `otpauth://` provisioning URL. */
export function secretOf(provisioningUrl: string): string {
  const secret = new URL(provisioningUrl).searchParams.get('secret');
  if (!secret) throw new Error(`no secret in ${provisioningUrl}`);
  return secret;
}

/**
 * The code of the current time step plus `offset` steps, for a base32 secret. Waits out the last half second of a
 * step, so that the code does not change steps between being made here and being checked by the controller.
 */
export async function code(secret: string, offset = 0): Promise<string> {
  const intoStep = Date.now() % 30_000;
  if (intoStep > 29_500) await new Promise((resolve) => setTimeout(resolve, 30_000 - intoStep + 20));
  return totpAt(base32Decode(secret), Date.now() / 1000 + offset * 30);
}
