import type { IncomingMessage, ServerResponse } from 'node:http';

const ALLOWED_HEADERS = 'content-type, accept, authorization, zt-session';
const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';

/**
 * CORS as the OpenZiti controller does it: any origin, credentials allowed. The origin is echoed rather than
 * sent as `*`, because browsers refuse `*` together with credentials.
 */
export function applyCors(req: IncomingMessage, res: ServerResponse): void {
  const origin = req.headers.origin;
  if (!origin) return;
  res.setHeader('access-control-allow-origin', origin);
  res.setHeader('access-control-allow-credentials', 'true');
  res.setHeader('access-control-allow-headers', ALLOWED_HEADERS);
  res.setHeader('access-control-allow-methods', ALLOWED_METHODS);
  res.setHeader('access-control-expose-headers', 'zt-session, expiration-seconds, expires-at');
  res.setHeader('vary', 'Origin');
}

export function isPreflight(req: IncomingMessage): boolean {
  return req.method === 'OPTIONS';
}
