// How the CLI's requests travel: HTTP/1.1 (http1.ts) over node:tls, with kept-alive connections per client. A command
// makes one request or a few, so what matters is what the first one costs: node:tls comes with Node, where a
// bundled HTTP library is compiled on every run (undici's agent was 410 KB of the 956 KB a `ctl identity list`
// loaded), and node:https would add Node's own HTTP client, agent and server modules to every start.
import { isIP } from 'node:net';
import { connect, createSecureContext } from 'node:tls';
import type { SecureContext, TLSSocket } from 'node:tls';
import { type Answer, encodeRequest, readAnswer } from './http1.js';
import type { TlsSessionStore } from './tls-sessions.js';

/** The TLS side of a connection: the CAs to trust (else the system store), a client certificate. */
export interface TlsSettings {
  ca?: string;
  cert?: string;
  key?: string;
  /** Only the CA bundle download of trust on first use turns verification off (trust.ts). */
  rejectUnauthorized?: boolean;
  /** Where the session of the last run is kept, to resume it (tls-sessions.ts). */
  sessions?: TlsSessionStore;
}

interface SendRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer | null;
  signal: AbortSignal;
}

// Failures of requests that never left this machine: their connection failed before its TLS handshake completed,
// and the TLS socket sends nothing written to it before that. Any of them may be made again elsewhere, a write too.
const unsent = new WeakSet<object>();

/** Methods that change nothing, so that making them twice is the same as making them once. */
const READS = new Set(['GET', 'HEAD']);

/** Whether a request of this method may be made again after it failed on its way: it changes nothing. */
export function changesNothing(method: string): boolean {
  return READS.has(method);
}

/** The connection was reset or closed under a request (as when the controller closed it as the request went out). */
function connectionLost(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

/** Whether a failed request may have reached the controller (its connection was up): a write must not be repeated. */
export function mayHaveBeenSent(err: unknown): boolean {
  return !(typeof err === 'object' && err !== null && unsent.has(err));
}

function failedUnsent(err: unknown, attempt: { secured: boolean }): unknown {
  if (!attempt.secured && typeof err === 'object' && err !== null) unsent.add(err);
  return err;
}

export interface Transport {
  send(url: URL, req: SendRequest): Promise<Answer>;
  /** Closes the kept-alive connections (a command run inside a longer-lived process must not leave them open). */
  close(): Promise<void>;
}

/** Bytes on a kept connection that nothing was asked of: it cannot be trusted with the next request. */
function unasked(this: TLSSocket) {
  this.destroy();
}

export function createTransport(tls: TlsSettings): Transport {
  const { sessions, ...verify } = tls;
  // Connections that carried an answer and were kept open, by host and port, ready for the next request there;
  // and every open one.
  const idle = new Map<string, TLSSocket[]>();
  const open = new Set<TLSSocket>();
  // No CA at all: nothing but a resumed session can pass verification with it, and building it parses no store.
  let anchorless: SecureContext | undefined;
  const resuming = (session: Buffer) => {
    anchorless ??= createSecureContext({ ca: [], cert: tls.cert, key: tls.key });
    return { session, secureContext: anchorless };
  };

  /**
   * A new connection to `url`'s host, verified as node:https verifies it: a name is sent as the server name and
   * checked against the certificate's names, an address (sent as none, which TLS forbids) against its addresses.
   */
  const connectTo = (url: URL, session?: Buffer): TLSSocket => {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const socket = connect({
      host,
      port: Number(url.port || 443),
      servername: isIP(host) ? undefined : host,
      ...verify,
      ...(session ? resuming(session) : {}),
    });
    open.add(socket);
    socket.on('close', () => {
      open.delete(socket);
      const kept = idle.get(url.host) ?? [];
      if (kept.includes(socket)) kept.splice(kept.indexOf(socket), 1);
    });
    // A kept connection that fails while idle is only dropped; in use, its error is the exchange's (readAnswer).
    socket.on('error', () => {});
    if (sessions) socket.on('session', (s: Buffer) => sessions.remember(s));
    return socket;
  };

  /** One request on `socket`, which is kept for the next one when the answer allows it. */
  const exchange = async (socket: TLSSocket, url: URL, request: Buffer, req: SendRequest) => {
    const { method, signal } = req;
    // The deadline covers the whole exchange, the body too; its reason (a TimeoutError) is what the caller sees.
    const abort = () => socket.destroy(signal.reason as Error);
    signal.addEventListener('abort', abort, { once: true });
    try {
      const answered = readAnswer(socket, method);
      socket.write(request);
      const { answer, reusable } = await answered;
      if (reusable && !socket.destroyed) {
        // An idle connection must not keep the process alive, as Node's own agent does.
        socket.unref();
        socket.on('data', unasked);
        idle.set(url.host, [...(idle.get(url.host) ?? []), socket]);
      } else {
        socket.destroy();
      }
      return answer;
    } catch (err) {
      // A connection whose exchange failed (an answer that is not HTTP/1.1, too large a head) is in no known state,
      // and left open it would keep the process alive until the server closes it.
      socket.destroy();
      throw err;
    } finally {
      signal.removeEventListener('abort', abort);
    }
  };

  /** One request on a new connection offering `session`; `attempt.secured` tells whether it got past the handshake. */
  const exchangeNew = (
    url: URL,
    request: Buffer,
    req: SendRequest,
    attempt: { secured: boolean },
    session?: Buffer,
  ) => {
    const socket = connectTo(url, session);
    socket.once('secureConnect', () => (attempt.secured = true));
    return exchange(socket, url, request, req).catch((err: unknown) => Promise.reject(failedUnsent(err, attempt)));
  };

  return {
    async send(url, req) {
      req.signal.throwIfAborted();
      // Encoded before any connection: a request that cannot be written fails as itself, never sent, and costs
      // neither a connection nor the kept session.
      let request: Buffer;
      try {
        request = encodeRequest(url, req.method, req.headers, req.body);
      } catch (err) {
        throw failedUnsent(err, { secured: false });
      }
      const kept = idle.get(url.host)?.pop();
      if (kept) {
        kept.off('data', unasked);
        kept.ref();
        try {
          return await exchange(kept, url, request, req);
        } catch (err) {
          // The controller closes a connection idle for its keep-alive time, and may do so as a request goes out on
          // it: a read is made once more, on a new connection; a write may have reached it and is not repeated.
          if (!changesNothing(req.method) || !connectionLost(err) || req.signal.aborted) throw err;
        }
      }
      // Only a new connection offers the kept session: reading it for a request on a kept connection is wasted I/O.
      const session = sessions?.resume();
      const attempt = { secured: false };
      try {
        return await exchangeNew(url, request, req, attempt, session);
      } catch (err) {
        // Failed before the handshake completed, so nothing was sent: the controller did not take the session (it
        // restarted, or the session expired), and a full handshake verifies it against the CA as usual.
        if (!session || attempt.secured || req.signal.aborted) throw err;
      }
      sessions?.forget();
      return exchangeNew(url, request, req, { secured: false });
    },
    async close() {
      for (const socket of open) socket.destroy();
    },
  };
}
