// One HTTP/1.1 exchange on a connection the transport made (transport.ts). node:https would bring Node's whole HTTP
// stack (its agent, client, server and parser modules, compiled on every run) for the one request or few that a
// command makes; a request and its answer, framed by length or in chunks, are all the CLI needs of it.
import type { Duplex } from 'node:stream';

/** What the server answered: its status, its headers (names in lower case, repeated ones joined with `, `). */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** An answer, and whether its connection may carry the next request. */
interface Read {
  answer: Answer;
  reusable: boolean;
}

/** The head of an answer may not grow past this (Node's own limit is 16 KB): a server sending no end is refused. */
const MAX_HEAD = 64 * 1024;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// What Node refuses in a header value too: a line break would let a value add headers of its own.
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\r\n]*)?$/;

/** The code of an error for an answer that is not HTTP/1.1 (the address serves something else over TLS). */
export const MALFORMED_ANSWER = 'ERR_CTL_MALFORMED_ANSWER';

/** An answer the CLI cannot read: said in the terms of the request that got it. */
function malformed(detail: string): Error {
  return Object.assign(new Error(`the answer is not valid HTTP/1.1 (${detail})`), { code: MALFORMED_ANSWER });
}

/** The connection closed before the answer was whole, as Node reports it. */
function hangUp(): Error {
  return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
}

/**
 * A request's bytes: its line, `host`, the headers given, the body framed by its length. Throws, before anything is
 * sent, on a method or header that cannot be written as given.
 */
export function encodeRequest(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body?: string | Buffer | null,
): Buffer {
  if (!TOKEN.test(method)) throw new TypeError(`invalid HTTP method '${method}'`);
  const lines = [`${method} ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`, 'connection: keep-alive'];
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name)) throw new TypeError(`invalid header name '${name}'`);
    if (INVALID_VALUE.test(value)) throw new TypeError(`invalid character in the value of header '${name}'`);
    if (name.toLowerCase() !== 'content-length') lines.push(`${name}: ${value}`);
  }
  // A body of any method is framed by its length: a DELETE's body unframed would be read as the next request.
  const bodyBytes = body == null ? undefined : Buffer.from(body);
  if (bodyBytes) lines.push(`content-length: ${bodyBytes.length}`);
  else if (method === 'POST' || method === 'PUT' || method === 'PATCH') lines.push('content-length: 0');
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return bodyBytes ? Buffer.concat([head, bodyBytes]) : head;
}

interface Head {
  version: number;
  status: number;
  headers: Record<string, string>;
}

function parseHead(text: string): Head {
  const [statusLine, ...fields] = text.split('\r\n');
  const status = STATUS_LINE.exec(statusLine);
  if (!status) throw malformed(`status line '${statusLine.slice(0, 40)}'`);
  const headers: Record<string, string> = {};
  for (const field of fields) {
    const colon = field.indexOf(':');
    const name = field.slice(0, colon).toLowerCase();
    if (colon <= 0 || !TOKEN.test(name)) throw malformed(`header line '${field.slice(0, 40)}'`);
    const value = field.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return { version: Number(status[1]), status: Number(status[2]), headers };
}

/** How an answer's body ends: after a length, after its last chunk, or when the connection closes. */
type Framing = { kind: 'length'; remaining: number } | { kind: 'chunked' } | { kind: 'close' };

function framingOf(method: string, head: Head): Framing {
  if (method === 'HEAD' || head.status === 204 || head.status === 304) return { kind: 'length', remaining: 0 };
  const coding = head.headers['transfer-encoding'];
  if (coding !== undefined) {
    return /(^|,)\s*chunked\s*$/i.test(coding) ? { kind: 'chunked' } : { kind: 'close' };
  }
  const length = head.headers['content-length'];
  if (length === undefined) return { kind: 'close' };
  if (!/^\d+$/.test(length)) throw malformed(`content-length '${length.slice(0, 40)}'`);
  return { kind: 'length', remaining: Number(length) };
}

/** Whether the server keeps the connection open after this answer. */
function keptAlive(head: Head): boolean {
  const connection = (head.headers.connection ?? '').toLowerCase();
  return head.version === 1 ? !/(^|,)\s*close\s*(,|$)/.test(connection) : /(^|,)\s*keep-alive\s*(,|$)/.test(connection);
}

/**
 * Reads the answer to the request just written (informational answers, 1xx, are skipped). Rejects with the
 * connection's error, with ECONNRESET when it closes before the answer is whole, or when the answer is not HTTP/1.1.
 */
export function readAnswer(connection: Duplex, method: string): Promise<Read> {
  return new Promise<Read>((resolve, reject) => {
    let pending: Buffer = Buffer.alloc(0);
    let head: Head | undefined;
    let framing: Framing | undefined;
    const body: Buffer[] = [];

    const finish = (outcome: { read: Read } | { error: Error }) => {
      connection.off('data', onData);
      connection.off('end', onEnd);
      connection.off('close', onEnd);
      connection.off('error', onError);
      if ('error' in outcome) reject(outcome.error);
      else resolve(outcome.read);
    };
    const complete = (reusable: boolean) => {
      const { status, headers } = head as Head;
      const text = Buffer.concat(body).toString('utf8');
      // Bytes after the answer were never asked for: the connection cannot be trusted with another request.
      finish({ read: { answer: { status, headers, text }, reusable: reusable && pending.length === 0 } });
    };

    /** Consumes what `pending` holds, and completes the answer once it is whole. */
    const advance = (): void => {
      while (true) {
        if (!head) {
          const end = pending.indexOf('\r\n\r\n');
          if (end < 0) {
            if (pending.length > MAX_HEAD) throw malformed('its head is too large');
            return;
          }
          const parsed = parseHead(pending.subarray(0, end).toString('latin1'));
          pending = pending.subarray(end + 4);
          if (parsed.status >= 100 && parsed.status < 200) continue;
          head = parsed;
          framing = framingOf(method, head);
        }
        const frame = framing as Framing;
        if (frame.kind === 'close') {
          body.push(pending);
          pending = Buffer.alloc(0);
          return;
        }
        if (frame.kind === 'length') {
          const taken = pending.subarray(0, frame.remaining);
          body.push(taken);
          frame.remaining -= taken.length;
          pending = pending.subarray(taken.length);
          if (frame.remaining > 0) return;
          complete(keptAlive(head));
          return;
        }
        const line = pending.indexOf('\r\n');
        if (line < 0) {
          if (pending.length > MAX_HEAD) throw malformed('a chunk size line is too long');
          return;
        }
        const sizeText = pending.subarray(0, line).toString('latin1').split(';')[0].trim();
        if (!/^[0-9a-fA-F]+$/.test(sizeText)) throw malformed(`chunk size '${sizeText.slice(0, 40)}'`);
        const size = Number.parseInt(sizeText, 16);
        if (size === 0) {
          // The last chunk, then trailers (ignored) up to an empty line.
          const trailerEnd = pending.indexOf('\r\n\r\n', line);
          const empty = pending.subarray(line, line + 4).toString('latin1') === '\r\n\r\n';
          if (!empty && trailerEnd < 0) return;
          pending = pending.subarray((empty ? line : trailerEnd) + 4);
          complete(keptAlive(head));
          return;
        }
        if (pending.length < line + 2 + size + 2) return;
        if (pending.subarray(line + 2 + size, line + 4 + size).toString('latin1') !== '\r\n') {
          throw malformed('a chunk does not end where its size says');
        }
        body.push(pending.subarray(line + 2, line + 2 + size));
        pending = pending.subarray(line + 4 + size);
      }
    };

    const onData = (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      try {
        advance();
      } catch (err) {
        finish({ error: err as Error });
      }
    };
    const onEnd = () => {
      if (head && framing?.kind === 'close') complete(false);
      else finish({ error: hangUp() });
    };
    const onError = (err: Error) => finish({ error: err });
    connection.on('data', onData);
    connection.on('end', onEnd);
    connection.on('close', onEnd);
    connection.on('error', onError);
  });
}
