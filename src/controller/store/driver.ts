import type { Dialect } from './dialects/dialect.js';
import type { Fragment } from './fragment.js';
import { LinkedList } from './linked-list.js';

export interface RunResult {
  changes: number;
}

/**
 * One database connection (or pool) behind the store: asynchronous, with `?` placeholders in every dialect, and
 * transactions that follow the async call chain. Inside `tx(fn)`, every statement that `fn` runs, however deep
 * and through whichever repository, belongs to the transaction; a statement from outside waits until it ends,
 * so no request ever reads another's uncommitted writes.
 */
export interface Driver {
  readonly dialect: Dialect;
  all<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  get<T>(sql: string, params?: readonly unknown[]): Promise<T | undefined>;
  run(sql: string, params?: readonly unknown[]): Promise<RunResult>;
  /**
   * Several reads as one round trip: the rows of each, in order. Both run them as one statement, the rows of each
   * aggregated as JSON (which holds every value the store reads: text, integers, null): a round trip saved on
   * PostgreSQL; on SQLite, in-process, a statement's own cost and a V8 value per column read.
   */
  allTogether(statements: readonly Fragment[]): Promise<Record<string, unknown>[][]>;
  /**
   * Statements sent to the database since it was opened, transaction control included: on PostgreSQL each is a
   * round trip, what a request's cost is counted in (docs/performance.md).
   */
  readonly statementsRun: number;
  /** Several statements without parameters (migration DDL); never cached. */
  exec(sql: string): Promise<void>;
  /**
   * Runs `fn` in one transaction: all of its writes are kept, or none. Nested calls join the outer one. A
   * transaction the database aborts for a deadlock or a serialisation conflict is run again from the start, a few
   * times, so `fn` must do nothing but reads and writes through the store (or things as harmless to repeat).
   */
  tx<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Inside a transaction: waits until no other transaction holds `lock`, then holds it until this one ends. SQLite
   * runs one transaction at a time, so there it has nothing to wait for. With a `key`, only transactions holding
   * the same lock for the same key wait for each other (one identity's rows, say).
   */
  hold(lock: WriteLock, key?: string): Promise<void>;
  /**
   * Inside a transaction: runs `fn` once it has committed (never if it rolls back), and answers true; a second `fn`
   * under the same `key` in the same transaction replaces the first (a transaction of 100,000 inserts keeps one).
   * Outside one it answers false and runs nothing: a statement outside a transaction has committed when it answers.
   */
  afterCommit(key: string, fn: () => void): boolean;
  /**
   * Whether this process is the only one that can write to the database: a number that changes whenever another
   * may have written since (a PostgreSQL controller that lost and took again the database's lock), undefined while
   * another may be writing. A cache of what the store holds is kept only while this holds the value it was read in.
   */
  readonly soleWriterEpoch: number | undefined;
  /**
   * Whether this process is the one that runs the database's background work (expiry sweeps): of the controllers
   * sharing a PostgreSQL database only one does at a time, so a sweep is not run once per controller.
   */
  leadsBackgroundWork(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Writes that must not interleave: `access-index` is taken by every write that can change what a policy selects
 * (docs/architecture.md, "The access index"); `mfa-codes` by every check of an MFA code, so that of two controllers
 * given the same code at once the second reads the time step the first used.
 */
export type WriteLock = 'access-index' | 'mfa-codes' | 'posture-reports';

/** A store that cannot be opened or reached: a clear message for the operator, never a stack trace. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

/**
 * The store's URL itself is wrong (a scheme we do not serve, not a URL): the operator's typing, so `ctl controller
 * start` reports it as a usage error. It keeps its parent's name, so whatever does not know it still reports an
 * unusable store.
 */
export class StoreUrlError extends StoreUnavailableError {}

/** How many prepared statements a connection keeps; each distinct filter shape is one, so the cache is bounded. */
export const STATEMENT_CACHE_SIZE = 256;

/**
 * And how much SQL text they may hold together. What SQLite keeps for a prepared statement grows with its text (a
 * long filter's is hundreds of KB), so a count alone let a client's distinct long filters pin hundreds of MB. The
 * store's own statements are a few hundred short ones, well inside this.
 */
export const STATEMENT_CACHE_SQL_CHARS = 256 * 1024;

/**
 * A bounded map that forgets the least recently used entries: at most `capacity` entries and, when `maxWeight` is
 * given, at most that total `weigh`t (an entry heavier than that alone is not kept). `onEvict` frees what an entry
 * holds.
 *
 * The order of use is a list through the entries, so that a hit only moves pointers. Kept as the order of a Map's
 * keys (deleted and set again on every hit), each hit left a hole in the Map's table, which V8 then copied into a new
 * one: a cache living as long as the process had every such copy outlive the young generation, and requests that hit
 * their statements and sessions in these caches promoted about a megabyte to the old generation every scavenge.
 */
export class LruCache<K, V> {
  private readonly map = new Map<K, CacheEntry<K, V>>();
  /** From the least recently used entry (first) to the most (last). */
  private readonly order = new LinkedList<CacheEntry<K, V>>();
  private weight = 0;

  constructor(
    readonly capacity: number,
    private readonly onEvict: (value: V) => void = () => {},
    private readonly limit?: { maxWeight: number; weigh: (key: K, value: V) => number },
  ) {}

  get size(): number {
    return this.map.size;
  }

  /** The total weight of the entries kept (their count when no weight is given). */
  get totalWeight(): number {
    return this.limit ? this.weight : this.map.size;
  }

  get(key: K): V | undefined {
    const entry = this.map.get(key);
    if (entry === undefined) return undefined;
    if (entry !== this.order.last) {
      this.order.unlink(entry);
      this.order.append(entry);
    }
    return entry.value;
  }

  set(key: K, value: V): void {
    this.remove(key);
    const weight = this.limit ? this.limit.weigh(key, value) : 0;
    if (this.limit && weight > this.limit.maxWeight) {
      this.onEvict(value);
      return;
    }
    const entry: CacheEntry<K, V> = { key, value, weight, before: undefined, after: undefined };
    this.map.set(key, entry);
    this.order.append(entry);
    this.weight += weight;
    let oldest = this.order.first;
    while (oldest && (this.map.size > this.capacity || (this.limit && this.weight > this.limit.maxWeight))) {
      this.remove(oldest.key);
      this.onEvict(oldest.value);
      oldest = this.order.first;
    }
  }

  private remove(key: K): void {
    const entry = this.map.get(key);
    if (entry === undefined) return;
    this.map.delete(key);
    this.order.unlink(entry);
    this.weight -= entry.weight;
  }
}

interface CacheEntry<K, V> {
  key: K;
  value: V;
  weight: number;
  /** The entries used just before and just after this one. */
  before: CacheEntry<K, V> | undefined;
  after: CacheEntry<K, V> | undefined;
}
