import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Password hashing with scrypt, the memory-hard KDF built into Node (no native dependency to compile).
 * N=2^15, r=8, p=1 (PASSWORD_COST) costs 32 MiB and tens of milliseconds per hash, which
 * makes offline guessing expensive.
 * Stored as `scrypt$N$r$p$salt$hash` so parameters can be raised later without breaking old hashes.
 */
/** The production cost; tests pass a cheaper one (the stored hash records its own cost, so both verify). */
export const PASSWORD_COST = { N: 2 ** 15, r: 8, p: 1 };
export type PasswordCost = typeof PASSWORD_COST;
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, N: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { N, r, p, maxmem: 256 * N * r }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

export class PasswordHasher {
  /**
   * A hash of a random password: verifying against it costs the same as against a real one
   * (no user enumeration by timing).
   */
  private decoy: Promise<string> | undefined;

  constructor(private readonly cost: PasswordCost = PASSWORD_COST) {}

  async hash(password: string): Promise<string> {
    const { N, r, p } = this.cost;
    const salt = randomBytes(16);
    const key = await derive(password, salt, N, r, p);
    return ['scrypt', N, r, p, salt.toString('base64'), key.toString('base64')].join('$');
  }

  /** Constant-time comparison of the derived key; a missing hash still spends the same work on a decoy. */
  async verify(password: string, stored: string | null | undefined): Promise<boolean> {
    this.decoy ??= this.hash(randomBytes(16).toString('hex'));
    const target = stored ?? (await this.decoy);
    const [scheme, n, r, p, saltB64, keyB64] = target.split('$');
    if (scheme !== 'scrypt') return false;
    const expected = Buffer.from(keyB64, 'base64');
    const actual = await derive(password, Buffer.from(saltB64, 'base64'), Number(n), Number(r), Number(p));
    return (
      actual.length === expected.length && timingSafeEqual(actual, expected) && stored !== undefined && stored !== null
    );
  }
}
