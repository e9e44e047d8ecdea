import type { LoginAttempts, Spent } from '../store/login-attempts.js';
import {
  type AttemptBuckets,
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
 * Token buckets kept in the database (Store.loginAttempts), one row per key under `prefix`: what TokenBuckets keeps
 * in memory, for controllers sharing a database. Taking a token is one statement, an addition the database makes,
 * so tokens taken on several controllers at once are all taken.
 */
export class SharedBuckets implements AttemptBuckets {
  constructor(
    private readonly attempts: LoginAttempts,
    private readonly prefix: string,
    private readonly options: BucketOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** The row that holds `key`'s bucket. */
  rowOf(key: string): string {
    return `${this.prefix}${key}`;
  }

  async waitMs(key: string): Promise<number> {
    return this.waitFor((await this.attempts.read([this.rowOf(key)])).get(this.rowOf(key)));
  }

  /** Milliseconds until a bucket that has spent `spent` has a whole attempt again; 0 when it has one now. */
  waitFor(spent: Spent | undefined): number {
    if (!spent) return 0;
    const { capacity, refillPerSecond } = this.options;
    const left = spent.spent - (this.now() - spent.at) * refillPerSecond;
    const over = left - (capacity - 1) * ONE;
    return over > 0 ? Math.ceil(over / refillPerSecond) : 0;
  }

  async take(key: string): Promise<void> {
    // A bucket refills `refillPerSecond` attempts a second: as many thousandths a millisecond.
    await this.attempts.add(this.rowOf(key), ONE, this.now(), this.options.refillPerSecond);
  }

  /**
   * One statement when there is a token: the addition is made in the database only if it leaves the bucket within
   * its capacity, so tokens taken on several controllers at once never exceed it. A refusal reads the wait.
   */
  async takeIfAny(key: string): Promise<number> {
    const { capacity, refillPerSecond } = this.options;
    const taken = await this.attempts.add(this.rowOf(key), ONE, this.now(), refillPerSecond, capacity * ONE);
    return taken === undefined ? Math.max(await this.waitMs(key), 1) : 0;
  }

  /** Forgets the buckets that are full again (as TokenBuckets forgets them), so the table holds recent failures. */
  async forgetRefilled(): Promise<void> {
    const refillMs = Math.ceil((this.options.capacity / this.options.refillPerSecond) * 1000);
    await this.attempts.forgetIdle(this.prefix, this.now() - refillMs);
  }
}

/**
 * The login throttle of controllers sharing a database: the same buckets and counts as LoginThrottle, kept in the
 * database, so that N controllers allow what one allows. A check is one statement (both buckets read together), a
 * failure one statement per key.
 */
export class DatabaseLoginThrottle implements LoginThrottling {
  private readonly byAddress: SharedBuckets;
  private readonly byUsername: SharedBuckets;
  /** Every bucket kind in the database, the other attempts' (bucketsFor) too: what forgetRefilled clears. */
  private readonly kinds: SharedBuckets[];

  constructor(
    private readonly attempts: LoginAttempts,
    options: LoginThrottleOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.byAddress = new SharedBuckets(attempts, 'address:', options.perAddress, now);
    this.byUsername = new SharedBuckets(attempts, 'username:', options.perUsername, now);
    this.kinds = [this.byAddress, this.byUsername];
  }

  async check(addressKey: string, username: string): Promise<void> {
    const [address, user] = [this.byAddress.rowOf(addressKey), this.byUsername.rowOf(usernameKey(username))];
    const spent = await this.attempts.read([address, user]);
    const wait = Math.max(this.byAddress.waitFor(spent.get(address)), this.byUsername.waitFor(spent.get(user)));
    if (wait > 0) throw new ThrottledError(Math.ceil(wait / 1000));
  }

  async failed(addressKey: string, username: string, identityId?: string): Promise<void> {
    await Promise.all([
      this.byAddress.take(addressKey),
      this.byUsername.take(usernameKey(username)),
      identityId === undefined ? undefined : this.attempts.add(identityKey(identityId), ONE, this.now(), 0),
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

  bucketsFor(kind: string, options: BucketOptions, now: () => number): AttemptBuckets {
    const buckets = new SharedBuckets(this.attempts, `${kind}:`, options, now);
    this.kinds.push(buckets);
    return buckets;
  }

  /**
   * Forgets the buckets that are full again, so the table holds only recent failures; identities' counts stay
   * until a success or the identity's delete. Background work: one controller runs it.
   */
  async forgetRefilled(): Promise<void> {
    for (const kind of this.kinds) await kind.forgetRefilled();
  }
}

function identityKey(identityId: string): string {
  return `identity:${identityId}`;
}
