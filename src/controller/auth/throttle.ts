import { ApiError } from '../../protocol/errors.js';
import { setLatest } from '../../protocol/latest-entries.js';

/** A token bucket per key: `capacity` tokens, refilled at `refillPerSecond`; bounded in the keys it tracks. */
export interface BucketOptions {
  capacity: number;
  refillPerSecond: number;
  /** At most this many keys are tracked; the least recently touched one goes first. */
  maxKeys: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class TokenBuckets implements AttemptBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly options: BucketOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds until `key` has a token; 0 when it has one now. Does not take it. */
  waitMs(key: string): number {
    const bucket = this.refilled(key);
    if (!bucket || bucket.tokens >= 1) return 0;
    return Math.ceil(((1 - bucket.tokens) / this.options.refillPerSecond) * 1000);
  }

  takeIfAny(key: string): number {
    const wait = this.waitMs(key);
    if (wait === 0) this.take(key);
    return wait;
  }

  /** Takes a token (the bucket may go empty, never below zero). */
  take(key: string): void {
    const bucket = this.refilled(key) ?? { tokens: this.options.capacity, at: this.now() };
    bucket.tokens = Math.max(bucket.tokens - 1, 0);
    // Re-inserted, so the Map's order is least recently touched first.
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    this.evict();
  }

  /** How many keys are tracked now (for tests and diagnostics). */
  get size(): number {
    return this.buckets.size;
  }

  /** The bucket brought up to now; a bucket that is full again is forgotten (it is the same as no bucket). */
  private refilled(key: string): Bucket | undefined {
    const bucket = this.buckets.get(key);
    if (!bucket) return undefined;
    const now = this.now();
    bucket.tokens = Math.min(
      this.options.capacity,
      bucket.tokens + ((now - bucket.at) / 1000) * this.options.refillPerSecond,
    );
    bucket.at = now;
    if (bucket.tokens >= this.options.capacity) {
      this.buckets.delete(key);
      return undefined;
    }
    return bucket;
  }

  private evict(): void {
    while (this.buckets.size > this.options.maxKeys) {
      const oldest = this.buckets.keys().next().value as string;
      this.buckets.delete(oldest);
    }
  }
}

/** Failed password checks of one identity since its last success: what a lockout by `maxAttempts` will read. */
export interface FailureCount {
  consecutive: number;
  lastAt: Date;
}

export interface LoginThrottleOptions {
  perAddress: BucketOptions;
  perUsername: BucketOptions;
  /** At most this many identities' failure counts are kept (least recently failed go first). */
  maxTrackedIdentities: number;
}

/**
 * Defaults (docs/security.md): a client address may fail 10 times at once, then once every 6 s (10 a minute);
 * a username, from all addresses together, 5 times at once, then once every 12 s (5 a minute). Only failures take
 * tokens, so a client that logs in correctly is never slowed; a bucket that is empty refuses before any password
 * work is done. 10,000 keys each at most: a few hundred KiB.
 */
export const DEFAULT_LOGIN_THROTTLE: LoginThrottleOptions = {
  perAddress: { capacity: 10, refillPerSecond: 1 / 6, maxKeys: 10_000 },
  perUsername: { capacity: 5, refillPerSecond: 1 / 12, maxKeys: 10_000 },
  maxTrackedIdentities: 10_000,
};

/**
 * Password guessing throttled per client address and per username, with token buckets: an attacker slows down
 * himself (his address) and the usernames he guesses at, nobody else. The username bucket exists whether or not
 * the user does, so a 429 says nothing about which usernames exist. Kept in memory (LoginThrottle) by a controller
 * alone on its database, in the database (DatabaseLoginThrottle) by controllers sharing one.
 */
export interface LoginThrottling {
  /** Refuses with 429 and `Retry-After` when the address or the username has no attempt left. */
  check(addressKey: string, username: string): Promise<void>;
  /** A failed attempt: takes a token from both buckets; counts against the identity when the username has one. */
  failed(addressKey: string, username: string, identityId?: string): Promise<void>;
  /** A successful login resets the identity's count of consecutive failures. */
  succeeded(identityId: string): Promise<void>;
  /** A deleted identity's count goes with it. */
  forget(identityId: string): Promise<void>;
  /** Consecutive failed password checks of an identity since its last success (none: undefined). */
  failuresOf(identityId: string): Promise<FailureCount | undefined>;
  /** Buckets of another `kind` of attempt (wrong MFA codes), kept where these are. */
  bucketsFor(kind: string, options: BucketOptions, now: () => number): AttemptBuckets;
}

/** Token buckets as a throttle asks them, in memory (TokenBuckets) or in the database (SharedBuckets). */
export interface AttemptBuckets {
  /** Milliseconds until `key` has a token; 0 when it has one now. Does not take it. */
  waitMs(key: string): number | Promise<number>;
  /** Takes a token (the bucket may go empty). */
  take(key: string): void | Promise<void>;
  /** Takes a token when `key` has one, answering 0; else takes nothing and answers the milliseconds until it has. */
  takeIfAny(key: string): number | Promise<number>;
}

/** In memory, bounded in the keys it tracks: for a controller that is the only one on its database. */
export class LoginThrottle implements LoginThrottling {
  private readonly byAddress: TokenBuckets;
  private readonly byUsername: TokenBuckets;
  private readonly failures = new Map<string, FailureCount>();

  constructor(
    private readonly options: LoginThrottleOptions = DEFAULT_LOGIN_THROTTLE,
    private readonly now: () => number = Date.now,
  ) {
    this.byAddress = new TokenBuckets(options.perAddress, now);
    this.byUsername = new TokenBuckets(options.perUsername, now);
  }

  async check(addressKey: string, username: string): Promise<void> {
    const wait = Math.max(this.byAddress.waitMs(addressKey), this.byUsername.waitMs(usernameKey(username)));
    if (wait > 0) throw new ThrottledError(Math.ceil(wait / 1000));
  }

  async failed(addressKey: string, username: string, identityId?: string): Promise<void> {
    this.byAddress.take(addressKey);
    this.byUsername.take(usernameKey(username));
    if (identityId === undefined) return;
    const failure = {
      consecutive: (this.failures.get(identityId)?.consecutive ?? 0) + 1,
      lastAt: new Date(this.now()),
    };
    setLatest(this.failures, identityId, failure, this.options.maxTrackedIdentities);
  }

  async succeeded(identityId: string): Promise<void> {
    this.failures.delete(identityId);
  }

  async forget(identityId: string): Promise<void> {
    this.failures.delete(identityId);
  }

  async failuresOf(identityId: string): Promise<FailureCount | undefined> {
    const count = this.failures.get(identityId);
    return count && { ...count };
  }

  bucketsFor(_kind: string, options: BucketOptions, now: () => number): AttemptBuckets {
    return new TokenBuckets(options, now);
  }

  /** Keys tracked (for tests: the memory stays bounded). */
  get trackedKeys(): { addresses: number; usernames: number; identities: number } {
    return { addresses: this.byAddress.size, usernames: this.byUsername.size, identities: this.failures.size };
  }
}

/** Usernames are matched exactly by the store; the bucket key is the same string, bounded in length by validation. */
export function usernameKey(username: string): string {
  return username;
}

/** 429 SERVER_TOO_MANY_REQUESTS with the seconds after which a retry can succeed (sent as `Retry-After`). */
export class ThrottledError extends ApiError {
  /** `what` names the attempts counted (failed logins; wrong MFA codes). */
  constructor(
    readonly retryAfterSeconds: number,
    what = 'failed logins',
  ) {
    super('SERVER_TOO_MANY_REQUESTS', { message: `too many ${what}; try again in ${retryAfterSeconds} s` });
  }
}
