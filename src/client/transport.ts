// How the CLI's requests travel: node:https with one keep-alive agent per client. A command makes one request or a
// few, so what matters is what the first one costs: node:https is loaded with Node itself, where an HTTP library
// of our own would be compiled on every run (undici's agent was 400 KB of the 950 KB a `ctl identity list` loaded).
import { Agent, request } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { ConnectionOptions } from 'node:tls';

/** The TLS side of a connection: the CAs to trust (else the system store), a client certificate. */
export interface TlsSettings {
  ca?: string;
  cert?: string;
  key?: string;
  /** Only the CA bundle download of trust on first use turns verification off (trust.ts). */
  rejectUnauthorized?: boolean;
  /** Extra options for each connection (a stored TLS session to resume, tls-sessions.ts). */
  connection?: () => ConnectionOptions;
  /** Told of each TLS session a connection is given, to resume it next time. */
  onSession?: (session: Buffer) => void;
}

export interface Exchange {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface Transport {
  send(url: URL, req: { method: string; headers: Record<string, string>; body?: string | Buffer | null; signal: AbortSignal }): Promise<Exchange>;
  /** Closes the kept-alive connections (a command run inside a longer-lived process must not leave them open). */
  close(): Promise<void>;
}

export function createTransport(tls: TlsSettings): Transport {
  const { connection, onSession, ...verify } = tls;
  const agent = new Agent({ keepAlive: true, ...verify });
  return {
    send(url, { method, headers, body, signal }) {
      return new Promise<Exchange>((resolve, reject) => {
        const req = request(url, { method, headers, agent, ...connection?.() }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        });
        if (onSession) req.on('socket', (socket) => socket.on('session', onSession));
        req.on('error', reject);
        // The deadline covers the whole exchange, the body too; its reason (a TimeoutError) is what the caller sees.
        const abort = () => req.destroy(signal.reason as Error);
        if (signal.aborted) abort();
        else signal.addEventListener('abort', abort, { once: true });
        req.end(body ?? undefined);
      });
    },
    async close() {
      agent.destroy();
    },
  };
}
