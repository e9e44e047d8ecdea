import type { IncomingMessage, ServerResponse } from 'node:http';

const ALLOWED_HEADERS = 'content-type, accept, authorization, zt-session';
const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';

/** An origin as browsers send it: scheme://host[:port], lower case, no trailing slash. */
export function normaliseOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase();
}

/**
 * CORS: any origin may call the API (its tokens travel in headers, not cookies), but credentials are allowed
 * only for the origins an operator configured (`--cors-origin`): those are echoed with
 * `access-control-allow-credentials: true`, every other origin gets `*` without credentials.
 */
export function applyCors(req: IncomingMessage, res: ServerResponse, trusted: ReadonlySet<string> = new Set()): void {
  const origin = req.headers.origin;
  if (!origin) return;
  if (trusted.has(normaliseOrigin(origin))) {
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('access-control-allow-credentials', 'true');
  } else {
    res.setHeader('access-control-allow-origin', '*');
  }
  res.setHeader('access-control-allow-headers', ALLOWED_HEADERS);
  res.setHeader('access-control-allow-methods', ALLOWED_METHODS);
  res.setHeader('access-control-expose-headers', 'zt-session, expiration-seconds, expires-at');
  res.setHeader('vary', 'Origin');
}

export function isPreflight(req: IncomingMessage): boolean {
  return req.method === 'OPTIONS';
}
