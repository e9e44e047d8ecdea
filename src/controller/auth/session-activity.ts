import type { SessionActivityRows } from '../store/session-activity-rows.js';

/**
 * How long a session's activity may wait before it is written. Another controller sharing the database reads a
 * session's last activity only for its expiry (and the sweep for idle sessions), so it may see it this much late:
 * harmless while sessions time out after minutes (`--session-timeout`, at least one).
 */
export const ACTIVITY_WRITE_DELAY_MS = 5_000;

/**
 * The API sessions' activity, written in batches: a request only notes the time it saw its session, and one
 * statement at most every ACTIVITY_WRITE_DELAY_MS writes the latest time of every session seen since, instead of
 * a write inside the request. Until then this process reads the unwritten time from here (`unwritten`).
 */
export class SessionActivity {
  /** Seen since the last write began: session id to the time of its latest request (Unix milliseconds). */
  private pending = new Map<string, number>();
  /** The batch being written: still not readable from the database. */
  private writing = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private written: Promise<void> = Promise.resolve();

  constructor(private readonly rows: SessionActivityRows) {}

  /** Notes a request of `sessionId` at `atMs`, to be written within the delay. */
  seen(sessionId: string, atMs: number): void {
    const known = this.pending.get(sessionId);
    if (known === undefined || atMs > known) this.pending.set(sessionId, atMs);
    // A write that fails puts its batch back (writeBatch): the timer of the next request seen retries it.
    this.timer ??= setTimeout(() => void this.write().catch(() => {}), ACTIVITY_WRITE_DELAY_MS).unref();
  }

  /** The latest activity of `sessionId` not yet in the database, if any (Unix milliseconds). */
  unwritten(sessionId: string): number | undefined {
    const pending = this.pending.get(sessionId);
    const writing = this.writing.get(sessionId);
    if (pending === undefined) return writing;
    return writing === undefined || pending > writing ? pending : writing;
  }

  /** Writes what was seen, in one statement; after any write already under way (they never overlap). */
  write(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const next = this.written.then(() => this.writeBatch());
    this.written = next.catch(() => {});
    return next;
  }

  private async writeBatch(): Promise<void> {
    if (this.pending.size === 0) return;
    this.writing = this.pending;
    this.pending = new Map();
    const latest = new Map<string, string>();
    for (const [id, atMs] of this.writing) latest.set(id, new Date(atMs).toISOString());
    try {
      await this.rows.write(latest);
    } catch (err) {
      for (const [id, atMs] of this.writing) {
        const later = this.pending.get(id);
        if (later === undefined || later < atMs) this.pending.set(id, atMs);
      }
      throw err;
    } finally {
      this.writing = new Map();
    }
  }
}
