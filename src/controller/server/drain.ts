import type { ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { type Linked, LinkedList } from '../store/linked-list.js';

/** Requests in flight on a server, so that a shutdown lets them finish instead of resetting them. */
export interface RequestDrain {
  /**
   * Ends keep-alive (idle connections close now, busy ones after their response) and resolves with the number of
   * requests still in flight: 0 once the last one is answered, or those left when `deadlineMs` passes.
   */
  drain(deadlineMs: number): Promise<number>;
}

/**
 * How long a connection that has not yet sent its first request is waited for when a shutdown begins. A client
 * that has just connected sends its request at once; closing its connection under it would fail a write that the
 * client cannot tell was not applied.
 */
export const FIRST_REQUEST_WAIT_MS = 2_000;

/**
 * Counts the server's requests from arrival to the end of their response, and its connections that have not yet
 * carried one. Registered before the request handler, so that a response begun while draining already says
 * `connection: close`.
 *
 * Node's closeIdleConnections() is not used: it also closes a connection whose first request is on its way, and the
 * client sees a reset after sending it. Here an idle connection that has served a request is closed at once (its
 * client reuses it at its own risk, as HTTP/1.1 allows), and a new one is given its first request.
 */
export function trackRequests(server: Server): RequestDrain {
  // A list, not a Set: one added and taken out per request, a Set's tables had requests promoted (LinkedList).
  const inFlight = new LinkedList<InFlight>();
  /** Every open connection, by its client's address and port (the same for the TCP socket and the TLS one on it). */
  const connections = new Map<string, Connection>();
  let draining = false;
  let settle: (() => void) | undefined;
  /** Settles a drain once nothing is in flight and no new connection is still to send its first request. */
  const check = () => {
    if (!settle || inFlight.size > 0) return;
    for (const connection of connections.values()) if (connection.state === 'new') return;
    settle();
  };
  const forget = (key: string) => () => {
    connections.delete(key);
    check();
  };
  // Tracked from TCP accept: a client may already send its request while the server still finishes the handshake.
  server.on('connection', (socket: Socket) => {
    const key = keyOf(socket);
    connections.set(key, { state: 'new', socket });
    socket.once('close', forget(key));
  });
  /** The same connections by their TLS socket, which a request names: found without making its key per request. */
  const bySocket = new WeakMap<Socket, Connection>();
  server.on('secureConnection', (socket: TLSSocket) => {
    const key = keyOf(socket);
    const connection = connections.get(key);
    if (connection) {
      connection.socket = socket;
      bySocket.set(socket, connection);
    }
    socket.once('close', forget(key));
  });
  server.on('request', (req, res: ServerResponse) => {
    const connection = bySocket.get(req.socket);
    if (connection) connection.state = 'busy';
    const request: InFlight = { res, before: undefined, after: undefined };
    inFlight.append(request);
    if (draining) res.setHeader('connection', 'close');
    res.once('close', () => {
      inFlight.unlink(request);
      if (connection && !connection.socket.destroyed) {
        connection.state = 'idle';
        // While draining, the answer said `connection: close` (or, begun before, kept the connection alive): end it.
        if (draining) connection.socket.end();
      }
      check();
    });
  });
  return {
    drain(deadlineMs) {
      draining = true;
      // A client whose answer is on its way must not send its next request on this connection.
      for (const { res } of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
      for (const connection of connections.values()) if (connection.state === 'idle') connection.socket.destroy();
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(deadline);
          clearTimeout(firstRequests);
          resolve(inFlight.size);
        };
        const deadline = setTimeout(done, deadlineMs);
        // A connection that never sends anything does not hold the shutdown past this.
        const closeSilent = () => {
          for (const { state, socket } of connections.values()) if (state === 'new') socket.destroy();
        };
        const firstRequests = setTimeout(closeSilent, Math.min(FIRST_REQUEST_WAIT_MS, deadlineMs));
        settle = done;
        check();
      });
    },
  };
}

/** A response begun and not yet closed. */
interface InFlight extends Linked<InFlight> {
  res: ServerResponse;
}

interface Connection {
  /** new: no request yet; busy: a request in flight; idle: answered, kept alive for the next. */
  state: 'new' | 'busy' | 'idle';
  /** The TLS socket once its handshake is done, the TCP socket before. */
  socket: Socket;
}

function keyOf(socket: Socket): string {
  return `${socket.remoteAddress}|${socket.remotePort}`;
}
