import type { RowMaker } from './row-maker.js';

/**
 * A statement reading several lookups for many keys: a row per key, its `key` and then, per lookup, the text of a
 * JSON array of that lookup's rows, each row an array of its columns' values, made an object by the lookup's maker.
 */
export interface KeyedStatement {
  sql: string;
  makers: readonly RowMaker[];
}

interface Waiter {
  resolve(rows: Record<string, unknown>[][]): void;
  reject(err: unknown): void;
}

/**
 * The most keys one statement is sent: a turn gathering more (many clients at once) sends several, so that no one
 * statement's answer, held whole in memory until it is read, grows with the number of clients.
 */
export const MOST_KEYS_A_STATEMENT = 500;

/** What a keyed statement answers for one key (KeyedStatement). */
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
  /** The reads waiting to be sent, by statement, then by key. */
  private pending = new Map<KeyedStatement, Map<string, Waiter[]>>();
  private scheduled = false;

  constructor(
    /** Sends one batched statement for these keys: a row per key. */
    private readonly send: (sql: string, keys: string[]) => Promise<KeyedRow[]>,
    private readonly mostKeys = MOST_KEYS_A_STATEMENT,
  ) {}

  /** The rows of each lookup `statement` reads, for `key`. */
  read(statement: KeyedStatement, key: string): Promise<Record<string, unknown>[][]> {
    let batch = this.pending.get(statement);
    if (batch === undefined) {
      batch = new Map();
      this.pending.set(statement, batch);
    }
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.sendPending);
    }
    const waiters = batch.get(key);
    return new Promise((resolve, reject) => {
      if (waiters) waiters.push({ resolve, reject });
      else batch.set(key, [{ resolve, reject }]);
    });
  }

  private readonly sendPending = (): void => {
    const pending = this.pending;
    this.pending = new Map();
    this.scheduled = false;
    for (const [statement, batch] of pending) {
      for (const part of this.parts(batch)) {
        // A failed send, or an answer that is not rows, fails the reads not answered yet and nothing else; a row
        // that cannot be read fails its own reads only (answer).
        this.send(statement.sql, [...part.keys()])
          .then((rows) => answer(statement.makers, part, rows))
          .catch((err: unknown) => {
            for (const waiters of part.values()) for (const w of waiters) w.reject(err);
          });
      }
    }
  };

  /** The batch in parts of at most `mostKeys` keys, each sent as a statement of its own. */
  private parts(batch: Map<string, Waiter[]>): Map<string, Waiter[]>[] {
    if (batch.size <= this.mostKeys) return [batch];
    const parts: Map<string, Waiter[]>[] = [];
    for (const [key, waiters] of batch) {
      let part = parts.at(-1);
      if (part === undefined || part.size === this.mostKeys) parts.push((part = new Map()));
      part.set(key, waiters);
    }
    return parts;
  }
}

function answer(makers: readonly RowMaker[], batch: Map<string, Waiter[]>, rows: KeyedRow[]): void {
  for (const row of rows) {
    const waiters = batch.get(row.key);
    if (waiters === undefined) continue;
    batch.delete(row.key);
    for (const w of waiters) {
      try {
        w.resolve(readOf(makers, row));
      } catch (err) {
        w.reject(err);
      }
    }
  }
  // The statement answers a row for every key sent; one missing would be a fault of ours, not an empty read.
  for (const waiters of batch.values()) {
    for (const w of waiters) w.reject(new Error('the batched read answered no row for a key it was sent'));
  }
}

/** One read's objects from its key's row: its own parse, as a presenter may change what it is given. */
function readOf(makers: readonly RowMaker[], row: KeyedRow): Record<string, unknown>[][] {
  const read: Record<string, unknown>[][] = new Array(makers.length);
  for (let i = 0; i < makers.length; i++) {
    const text = row[i];
    // A lookup that found nothing (often most of a read model's) is not worth a call of the parser.
    read[i] = text === '[]' ? [] : (JSON.parse(text) as unknown[][]).map(makers[i]);
  }
  return read;
}
