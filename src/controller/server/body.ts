import type { IncomingMessage } from 'node:http';
import { ApiError } from '../../protocol/errors.js';
import type { Access } from './types.js';

/** Bodies of authenticated requests (the largest the API needs). */
export const BODY_LIMIT = 1024 * 1024;
/** Bodies of public routes (authentication): small, so an anonymous client cannot make the server buffer much. */
export const PUBLIC_BODY_LIMIT = 16 * 1024;

/** The body limit of a route by who may call it; the authentication stage has run before a body is read. */
export function bodyLimitFor(access: Access): number {
  return access === 'public' ? PUBLIC_BODY_LIMIT : BODY_LIMIT;
}

/** Reads the body, refusing more than the limit whether or not Content-Length announced it. */
export async function readBody(req: IncomingMessage, limit = BODY_LIMIT): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw tooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      req.resume();
      throw tooLarge(limit);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A body as text; bytes that are not UTF-8 are refused rather than silently replaced. */
export function decodeUtf8(bytes: Buffer): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new ApiError('COULD_NOT_PARSE_BODY', { message: 'The request body is not valid UTF-8' });
  }
}

function tooLarge(limit: number): ApiError {
  return new ApiError('REQUEST_ENTITY_TOO_LARGE', { message: `The request body is larger than ${limit} bytes` });
}

/**
 * Parses JSON, refusing `__proto__` and `constructor.prototype` keys: a body must never reach object prototypes.
 * An empty body is its own error, so the client learns that a body was expected.
 */
export function parseJson(text: string): unknown {
  if (text.trim() === '') {
    throw new ApiError('COULD_NOT_PARSE_BODY', { message: 'The request body is empty; a JSON document was expected' });
  }
  try {
    return JSON.parse(text, (key, value) => {
      if (
        key === '__proto__' ||
        (key === 'constructor' && value && typeof value === 'object' && 'prototype' in value)
      ) {
        throw new SyntaxError(`forbidden property '${key}'`);
      }
      return value;
    });
  } catch (err) {
    throw new ApiError('COULD_NOT_PARSE_BODY', {
      message: 'The body of the request could not be parsed as JSON',
      cause: { code: 'UNHANDLED', message: (err as Error).message },
    });
  }
}
