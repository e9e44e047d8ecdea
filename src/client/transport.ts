// How the CLI's requests travel: node:https with one keep-alive agent per client. A command makes one request or a
// few, so what matters is what the first one costs: node:https comes with Node, where a bundled HTTP library is
// compiled on every run (undici's agent was 410 KB of the 956 KB a `ctl identity list` loaded).
import { Agent, request } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { createSecureContext } from 'node:tls';
import type { SecureContext } from 'node:tls';
import type { TLSSocket } from 'node:tls';
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

export interface Exchange {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

// Failures of requests that never left this machine: their connection failed before its TLS handshake completed,
// and Node writes nothing of a request before that. Any of them may be made again elsewhere, a write too.
const unsent = new WeakSet<object>();

/** Whether a failed request may have reached the controller (its connection was up): a write must not be repeated. */
export function mayHaveBeenSent(err: unknown): boolean {
  return !(typeof err === 'object' && err !== null && unsent.has(err));
}

function failedUnsent(err: unknown, attempt: { secured: boolean }): unknown {
  if (!attempt.secured && typeof err === 'object' && err !== null) unsent.add(err);
  return err;
}

export interface Transport {
  send(url: URL, req: SendRequest): Promise<Exchange>;
  /** Closes the kept-alive connections (a command run inside a longer-lived process must not leave them open). */
  close(): Promise<void>;
}

export function createTransport(tls: TlsSettings): Transport {
  const { sessions, ...verify } = tls;
  const agent = new Agent({ keepAlive: true, ...verify });
  // No CA at all: nothing but a resumed session can pass verification with it, and building it parses no store.
  let anchorless: SecureContext | undefined;
  const resuming = (session: Buffer) => {
    anchorless ??= createSecureContext({ ca: [], cert: tls.cert, key: tls.key });
    return { session, secureContext: anchorless };
  };

  /** One request; `attempt.secured` tells whether its connection got past the TLS handshake. */
  const exchange = (url: URL, req: SendRequest, attempt: { secured: boolean }, session?: Buffer) =>
    new Promise<Exchange>((resolve, reject) => {
      const { method, body, signal } = req;
      // Node frames a body of DELETE (and GET, OPTIONS) neither by length nor by chunks unless told its length: the
      // controller would read the body as the start of the next request.
      const headers =
        body == null ? req.headers : { ...req.headers, 'content-length': String(Buffer.byteLength(body)) };
      const outgoing = request(url, { method, headers, agent, ...(session ? resuming(session) : {}) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      });
      outgoing.on('socket', (socket: TLSSocket) => {
        if (!socket.connecting) {
          attempt.secured = true; // a kept-alive connection, listened to when it was new
          return;
        }
        socket.once('secureConnect', () => (attempt.secured = true));
        if (sessions) socket.on('session', (s: Buffer) => sessions.remember(s));
      });
      outgoing.on('error', reject);
      // The deadline covers the whole exchange, the body too; its reason (a TimeoutError) is what the caller sees.
      const abort = () => outgoing.destroy(signal.reason as Error);
      if (signal.aborted) abort();
      else signal.addEventListener('abort', abort, { once: true });
      outgoing.end(body ?? undefined);
    });

  return {
    async send(url, req) {
      const session = sessions?.resume();
      const attempt = { secured: false };
      try {
        return await exchange(url, req, attempt, session);
      } catch (err) {
        // Failed before the handshake completed, so nothing was sent: the controller did not take the session (it
        // restarted, or the session expired), and a full handshake verifies it against the CA as usual.
        if (!session || attempt.secured || req.signal.aborted) throw failedUnsent(err, attempt);
      }
      sessions?.forget();
      const fresh = { secured: false };
      return exchange(url, req, fresh).catch((err: unknown) => Promise.reject(failedUnsent(err, fresh)));
    },
    async close() {
      agent.destroy();
    },
  };
}
