import type { Dialect } from './dialects/dialect.js';

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
   * runs one transaction at a time, so there it has nothing to wait for.
   */
  hold(lock: WriteLock): Promise<void>;
  close(): Promise<void>;
}

/**
 * Writes that must not interleave: `access-index` is taken by every write that can change what a policy selects
 * (docs/architecture.md, "The access index").
 */
export type WriteLock = 'access-index';

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

/** A bounded map that forgets the least recently used entry; `onEvict` frees what the entry holds. */
export class LruCache<K, V> {
  private readonly map = new Map<K, V>();

  constructor(
    readonly capacity: number,
    private readonly onEvict: (value: V) => void = () => {},
  ) {}

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) {
      const [oldestKey, oldest] = this.map.entries().next().value as [K, V];
      this.map.delete(oldestKey);
      this.onEvict(oldest);
    }
  }
}
