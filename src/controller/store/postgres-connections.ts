import type { Client } from 'pg';

/** One held connection: what it runs on, whether it is ready, and how many of its statements have not answered. */
interface Held {
  client: Client;
  /** Settles once the connection is made: its failure is what a statement sent meanwhile reports. */
  connecting: Promise<unknown> | undefined;
  inFlight: number;
  /** Since when it has had statements in flight without a pause: a slow one holds up those queued behind it. */
  busySince: number;
}

/**
 * The connections that statements outside a transaction run on: a few held for the life of the driver, each in
 * pg's pipeline mode, so that a statement is written without waiting for those before it and its answer read in
 * turn, with no connection borrowed from a pool and given back per statement (which was most of pg's cost per
 * statement). A statement goes to an idle connection, one more is made while there is room, else it queues on the
 * one with the fewest in flight (of those, the one busy for the shortest time: a slow list delays no more statements
 * than it must). A connection that fails or is ended by the server is let go, and the next statement that needs one
 * makes it again; what was in flight on it fails with the connection's error, as on a pooled connection.
 */
export class HeldConnections {
  private readonly held: Held[] = [];
  private closing = false;

  constructor(
    /** A new connection in pipeline mode, not yet connected. */
    private readonly newClient: () => Client,
    private readonly most: number,
  ) {}

  /** Runs `use` (which sends one statement) on a held connection. */
  async run<R>(use: (client: Client) => Promise<R>): Promise<R> {
    if (this.closing) throw new Error('Client was closed and is not queryable');
    const held = this.choose();
    if (held.inFlight++ === 0) held.busySince = performance.now();
    try {
      if (held.connecting) await held.connecting;
      return await use(held.client);
    } catch (err) {
      // pg hands a statement the server's 57P01 before the connection's own end is heard: let it go now, so that
      // the next statement (a read made again) goes on another connection and not back to this one.
      if (connectionEnded(err)) this.letGo(held);
      throw err;
    } finally {
      held.inFlight--;
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.held.splice(0).map((h) => h.client.end().catch(() => {})));
  }

  private choose(): Held {
    let best: Held | undefined;
    for (const h of this.held) {
      if (h.inFlight === 0) return h;
      if (!best || h.inFlight < best.inFlight || (h.inFlight === best.inFlight && h.busySince > best.busySince)) {
        best = h;
      }
    }
    return best && this.held.length >= this.most ? best : this.connect();
  }

  /** Takes a connection out of those statements go to, and ends it: the next statement that needs one makes it. */
  private letGo(held: Held): void {
    const i = this.held.indexOf(held);
    if (i < 0) return;
    this.held.splice(i, 1);
    void held.client.end().catch(() => {});
  }

  private connect(): Held {
    const client = this.newClient();
    const held: Held = { client, connecting: undefined, inFlight: 0, busySince: 0 };
    const letGo = () => this.letGo(held);
    // A connection that fails, or that the server ends, is let go at once: the next statement makes another. Its
    // statements in flight fail with the error (pg reports it to each); the event itself must not end the process.
    client.on('error', letGo);
    client.once('end', letGo);
    held.connecting = client.connect().then(
      () => {
        held.connecting = undefined;
      },
      (err: unknown) => {
        letGo();
        throw err;
      },
    );
    // Statements waiting on it hear of a failure; with none waiting, it must not be an unhandled rejection.
    held.connecting.catch(() => {});
    this.held.push(held);
    return held;
  }
}

/** The server ended the connection (57P01), or it closed or was reset under the statement (pg's own error). */
export function connectionEnded(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === '57P01' || code === 'ECONNRESET' || code === 'EPIPE') return true;
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' && /Connection terminated/.test(message);
}
