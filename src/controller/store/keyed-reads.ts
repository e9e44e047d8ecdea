interface Waiter {
  resolve(rows: Record<string, unknown>[][]): void;
  reject(err: unknown): void;
}

/** One batched statement's reads waiting to be sent, by key. */
interface Batch {
  /** How many lookups the statement reads per key (its columns after the key). */
  lookups: number;
  byKey: Map<string, Waiter[]>;
}

/** What the batched statement answers: per key, each lookup's rows as the text of a JSON array of objects. */
export type KeyedRow = { key: string } & Record<string, string>;

/**
 * Reads of a read model by one key (a GET by id: the entity's row and the rows its read model gathers, each bound
 * to the id), gathered from the requests handled in one turn of the event loop and sent as one statement for all
 * their keys once the turn's input is handled. Each statement is a round trip with a fixed cost on both ends (on a
 * 2-core machine PostgreSQL spends about 30 µs on the least statement, and the controller about as much sending it
 * and reading its answer), which the requests of a turn now share (docs/performance.md). Sending the first read of
 * a turn at once and gathering only while one is on its way made smaller batches and fewer requests a second.
 *
 * A read is sent after the request asked for it, so it sees every write acknowledged before (as one sent at once
 * would). Reads of one key in one statement share its row; each is given objects of its own (its own JSON parse),
 * as a presenter may change what it is given.
 */
export class KeyedReads {
  private pending = new Map<string, Batch>();
  private scheduled = false;

  constructor(
    /** Sends one batched statement for these keys: a row per key. */
    private readonly send: (sql: string, keys: string[]) => Promise<KeyedRow[]>,
  ) {}

  /** The rows of each of `lookups` lookups of `sql`'s batched statement for `key`. */
  read(sql: string, lookups: number, key: string): Promise<Record<string, unknown>[][]> {
    let batch = this.pending.get(sql);
    if (batch === undefined) {
      batch = { lookups, byKey: new Map() };
      this.pending.set(sql, batch);
    }
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.sendPending);
    }
    const waiters = batch.byKey.get(key);
    return new Promise((resolve, reject) => {
      if (waiters) waiters.push({ resolve, reject });
      else batch.byKey.set(key, [{ resolve, reject }]);
    });
  }

  private readonly sendPending = (): void => {
    const pending = this.pending;
    this.pending = new Map();
    this.scheduled = false;
    for (const [sql, batch] of pending) {
      this.send(sql, [...batch.byKey.keys()]).then(
        (rows) => answer(batch, rows),
        (err: unknown) => {
          for (const waiters of batch.byKey.values()) for (const w of waiters) w.reject(err);
        },
      );
    }
  };
}

function answer(batch: Batch, rows: KeyedRow[]): void {
  for (const row of rows) {
    const waiters = batch.byKey.get(row.key);
    if (waiters === undefined) continue;
    batch.byKey.delete(row.key);
    for (const w of waiters) {
      const read: Record<string, unknown>[][] = new Array(batch.lookups);
      for (let i = 0; i < batch.lookups; i++) read[i] = JSON.parse(row[i]);
      w.resolve(read);
    }
  }
  // The statement answers a row for every key sent; one missing would be a fault of ours, not an empty read.
  for (const waiters of batch.byKey.values()) {
    for (const w of waiters) w.reject(new Error('the batched read answered no row for a key it was sent'));
  }
}
