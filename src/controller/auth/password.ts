import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Password hashing with scrypt, the memory-hard KDF built into Node (no native dependency to compile).
 * N=2^15, r=8, p=1 costs 32 MiB and tens of milliseconds per hash, which makes offline guessing expensive.
 * Stored as `scrypt$N$r$p$salt$hash` so parameters can be raised later without breaking old hashes.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, N: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { N, r, p, maxmem: 256 * N * r }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS.N, PARAMS.r, PARAMS.p);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** A hash of a random password: verifying against it costs the same as against a real one (no user enumeration by timing). */
let decoy: Promise<string> | undefined;

/** Constant-time comparison of the derived key; a missing hash still spends the same work on a decoy. */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  const target = stored ?? (await decoy);
  const [scheme, n, r, p, saltB64, keyB64] = target.split('$');
  if (scheme !== 'scrypt') return false;
  const expected = Buffer.from(keyB64, 'base64');
  const actual = await derive(password, Buffer.from(saltB64, 'base64'), Number(n), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected) && stored !== undefined && stored !== null;
}
