import type { ServerResponse } from 'node:http';
import type { Server } from 'node:https';

/** Requests in flight on a server, so that a shutdown lets them finish instead of resetting them. */
export interface RequestDrain {
  /**
   * Ends keep-alive (idle connections close now, busy ones after their response) and resolves with the number of
   * requests still in flight: 0 once the last one is answered, or those left when `deadlineMs` passes.
   */
  drain(deadlineMs: number): Promise<number>;
}

/**
 * Counts the server's requests from arrival to the end of their response. Registered before the request handler,
 * so that a response begun while draining already says `connection: close`.
 */
export function trackRequests(server: Server): RequestDrain {
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  let onIdle: (() => void) | undefined;
  server.on('request', (_req, res: ServerResponse) => {
    inFlight.add(res);
    if (draining) res.setHeader('connection', 'close');
    res.once('close', () => {
      inFlight.delete(res);
      if (inFlight.size === 0) onIdle?.();
    });
  });
  return {
    drain(deadlineMs) {
      draining = true;
      // A client whose answer is on its way must not send its next request on this connection.
      for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
      server.closeIdleConnections();
      if (inFlight.size === 0) return Promise.resolve(0);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(inFlight.size), deadlineMs);
        onIdle = () => {
          clearTimeout(timer);
          resolve(0);
        };
      });
    },
  };
}
