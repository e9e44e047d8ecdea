import type { LoginAttempts, Spent } from '../store/login-attempts.js';
import {
  type BucketOptions,
  type FailureCount,
  type LoginThrottleOptions,
  type LoginThrottling,
  ThrottledError,
  usernameKey,
} from './throttle.js';

/** Attempts are counted in thousandths, so that a bucket refills by whole numbers per millisecond. */
const ONE = 1000;

/**
 * The login throttle of controllers sharing a database: the same buckets and counts as LoginThrottle, kept in the
 * database (Store.loginAttempts), so that N controllers allow what one allows. A check is one statement (both
 * buckets read together), a failure one statement per key, each an addition made by the database, so failures
 * counted on several controllers at once are all counted.
 */
export class SharedLoginThrottle implements LoginThrottling {
  constructor(
    private readonly attempts: LoginAttempts,
    private readonly options: LoginThrottleOptions,
    private readonly now: () => number = Date.now,
  ) {}

  async check(addressKey: string, username: string): Promise<void> {
    const [address, user] = [`address:${addressKey}`, `username:${usernameKey(username)}`];
    const spent = await this.attempts.read([address, user]);
    const now = this.now();
    const wait = Math.max(
      waitMs(spent.get(address), this.options.perAddress, now),
      waitMs(spent.get(user), this.options.perUsername, now),
    );
    if (wait > 0) throw new ThrottledError(Math.ceil(wait / 1000));
  }

  async failed(addressKey: string, username: string, identityId?: string): Promise<void> {
    const now = this.now();
    // A bucket refills `refillPerSecond` attempts a second: as many thousandths a millisecond.
    await Promise.all([
      this.attempts.add(`address:${addressKey}`, ONE, now, this.options.perAddress.refillPerSecond),
      this.attempts.add(`username:${usernameKey(username)}`, ONE, now, this.options.perUsername.refillPerSecond),
      identityId === undefined ? undefined : this.attempts.add(identityKey(identityId), ONE, now, 0),
    ]);
  }

  async succeeded(identityId: string): Promise<void> {
    await this.attempts.clear(identityKey(identityId));
  }

  async forget(identityId: string): Promise<void> {
    await this.attempts.clear(identityKey(identityId));
  }

  async failuresOf(identityId: string): Promise<FailureCount | undefined> {
    const spent = (await this.attempts.read([identityKey(identityId)])).get(identityKey(identityId));
    return spent && { consecutive: Math.round(spent.spent / ONE), lastAt: new Date(spent.at) };
  }

  /**
   * Forgets the buckets that are full again (as LoginThrottle forgets them), so the table holds only recent
   * failures; identities' counts stay until a success or the identity's delete. Background work: one controller.
   */
  async forgetRefilled(): Promise<void> {
    const now = this.now();
    await this.attempts.forgetIdle('address:', now - refillMs(this.options.perAddress));
    await this.attempts.forgetIdle('username:', now - refillMs(this.options.perUsername));
  }
}

function identityKey(identityId: string): string {
  return `identity:${identityId}`;
}

/** How long an empty bucket takes to fill again. */
function refillMs(bucket: BucketOptions): number {
  return Math.ceil((bucket.capacity / bucket.refillPerSecond) * 1000);
}

/** Milliseconds until a bucket that has spent `spent` has a whole attempt again; 0 when it has one now. */
function waitMs(spent: Spent | undefined, bucket: BucketOptions, now: number): number {
  if (!spent) return 0;
  const left = spent.spent - (now - spent.at) * bucket.refillPerSecond;
  const over = left - (bucket.capacity - 1) * ONE;
  return over > 0 ? Math.ceil(over / bucket.refillPerSecond) : 0;
}
