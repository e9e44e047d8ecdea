import type { ServerResponse } from 'node:http';
import { ERROR_META } from '../../protocol/envelope.js';
import type { ApiError } from '../../protocol/errors.js';
import type { Reply } from './types.js';

export function sendReply(res: ServerResponse, reply: Reply): void {
  if (reply.headers) for (const name in reply.headers) res.setHeader(name, reply.headers[name]);
  if ('raw' in reply) {
    res.statusCode = reply.status ?? 200;
    res.setHeader('content-type', reply.contentType);
    res.end(reply.raw);
    return;
  }
  if ('dataJson' in reply) {
    sendJsonText(res, reply.status ?? 200, `{"data":${reply.dataJson},"meta":{}}`);
    return;
  }
  sendJson(res, reply.status ?? 200, { data: reply.data, meta: reply.meta === undefined ? {} : reply.meta });
}

export function sendError(res: ServerResponse, err: ApiError, requestId: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const retryAfter = (err as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  if (typeof retryAfter === 'number') res.setHeader('retry-after', String(retryAfter));
  if (err.status === 401) {
    res.setHeader(
      'www-authenticate',
      'zt-session realm="zt-session" error="invalid" error_description="token is invalid or missing"',
    );
  }
  sendJson(res, err.status, { error: err.toWire(requestId), meta: ERROR_META });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendJsonText(res, status, JSON.stringify(body));
}

function sendJsonText(res: ServerResponse, status: number, text: string): void {
  res.setHeader('content-type', 'application/json');
  res.setHeader('content-length', Buffer.byteLength(text));
  // The head written before the body: `end` would otherwise measure the body's bytes again for a length it has.
  res.writeHead(status);
  res.end(text);
}
