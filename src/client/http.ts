// The one HTTP stack of the CLI: every controller call goes through createApiClient, so timeouts, TLS trust,
// the session header and error translation behave the same for every command.
import { CLIENT_BASE, MANAGEMENT_BASE, SESSION_HEADER } from '../protocol/envelope.js';
import type { ListEnvelope } from '../protocol/envelope.js';
import { ApiError } from '../protocol/errors.js';
import type { ErrorCause } from '../protocol/errors.js';
import { suggestCommand } from '../console/command-hint.js';
import type { Selection } from '../console/command-hint.js';
import { type Answer, MALFORMED_ANSWER } from './http1.js';
import type { ConnectionPools } from './pools.js';
import { mayRetryAfterFailure, mayRetryAnswer, NoControllerAnsweredError } from './failover.js';
import { createTransport } from './transport.js';
import type { Transport } from './transport.js';
import type { TlsSessionStore } from './tls-sessions.js';
import { RequestApiError, TransportError } from './types.js';
import type { ApiClient, ApiName, ApiResponse, ListQuery, RequestOptions } from './types.js';

export const DEFAULT_TIMEOUT_MS = 30_000;

/** How every request goes over the network: its deadline, and where `--verbose` writes each request and timing. */
export interface NetOptions {
  timeoutMs?: number;
  trace?: (line: string) => void;
  /** Told of every connection pool a client opens, so that whoever runs the command can close them all at its end. */
  pools?: ConnectionPools;
  /**
   * Runs each request, so that one left unanswered can be shown as waiting (a spinner on a terminal after a
   * moment: an unresponsive controller would otherwise look like a hung ctl until the timeout).
   */
  waiting?: <T>(controller: string, request: () => Promise<T>) => Promise<T>;
}

export interface ApiClientOptions extends NetOptions {
  /** Controller origin, optionally with a path prefix (a reverse proxy): `https://ctrl.example:1280`. */
  baseUrl: string;
  /**
   * The network's other controllers (sharing its database and PKI), tried in turn when a request to the one before
   * fails and may safely be made again (failover.ts).
   */
  fallbackUrls?: readonly string[];
  /** Told when a controller other than the one in use answered: the next requests start there. */
  onFailover?: (baseUrl: string) => void | Promise<void>;
  /** PEM bundle to trust instead of the system store; the server chain is verified against it. */
  caPem?: string;
  token?: string;
  /** A client certificate (PEM chain) and its key, presented on every connection (certificate authentication). */
  clientCert?: { cert: string; key: string };
  /** Where the TLS session of the last run with a controller is kept, to resume instead of a full handshake. */
  tlsSessions?: (baseUrl: string) => TlsSessionStore;
  /** Called when the controller issues a session token (authenticate); the client also adopts it. */
  onSessionToken?: (token: string) => void;
  /** The options that select the profile this client works for: the commands its errors suggest carry them. */
  selection?: Selection;
  /** Lets the owner of the session turn an API error into a better one (401 into "session expired"). */
  mapError?: (err: ApiError, request: { method: string; path: string }) => Error | Promise<Error>;
}

/** The server's certificate does not chain to the CAs we trust: trusting the controller's CA again may help. */
export class UntrustedCertificateError extends TransportError {
  constructor(
    message: string,
    url: string,
    hint: string,
    readonly reason: string,
  ) {
    super(message, url, hint);
    this.name = 'UntrustedCertificateError';
  }
}

// Paths that already name their API (or none: well-known, root version) are used as they are.
const PASSTHROUGH = /^\/(?:edge\/|\.well-known\/|version(?:[?#]|$))/;

/** Full URL of `path` (relative to the chosen API unless it names one itself) with `query` appended. */
export function resolveUrl(
  baseUrl: string,
  path: string,
  api: ApiName = 'management',
  query?: RequestOptions['query'],
): URL {
  const base = api === 'client' ? CLIENT_BASE : MANAGEMENT_BASE;
  // `./identities/x` is how `_links` hrefs are written; treat it like `identities/x`.
  const full = PASSTHROUGH.test(path) ? path : `${base}/${path.replace(/^\.?\/+/, '')}`;
  const url = new URL(baseUrl.replace(/\/+$/, '') + full);
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(v));
  }
  return url;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

// Codes for error bodies that are not envelopes (a proxy's 502 page, a plain-text 404): the status is all we know.
const CODE_BY_STATUS: Record<number, string> = {
  401: 'UNAUTHORIZED',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'REQUEST_ENTITY_TOO_LARGE',
  429: 'SERVER_TOO_MANY_REQUESTS',
};

/** The ApiError a non-2xx response stands for: the controller's envelope when there is one, else the status. */
export function apiErrorFromResponse(status: number, body: unknown): ApiError {
  const wire = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  if (wire && typeof wire.code === 'string') {
    return new ApiError(wire.code, {
      status,
      message: str(wire.message),
      cause: isRecord(wire.cause) || typeof wire.cause === 'string' ? (wire.cause as ErrorCause) : undefined,
      requestId: str(wire.requestId),
    });
  }
  // A short one-line text body usually says what went wrong; an HTML page would only be noise.
  const text = typeof body === 'string' ? body.trim() : '';
  const detail = text && text.length <= 200 && !text.includes('\n') && !text.startsWith('<') ? `: ${text}` : '';
  return new ApiError(CODE_BY_STATUS[status] ?? `HTTP_${status}`, {
    status,
    // node:http is loaded here only: a request needs no more than node:tls, and node:http would bring its server.
    message: `HTTP ${status} ${process.getBuiltinModule('node:http').STATUS_CODES[status] ?? ''}`.trim() + detail,
  });
}

function errorCode(err: unknown): string | undefined {
  // Node reports a refused dual-stack connect as an AggregateError; other layers may wrap the socket error.
  for (let e: unknown = err, depth = 0; isErrorLike(e) && depth < 4; depth++) {
    if (typeof e.code === 'string') return e.code;
    e = Array.isArray(e.errors) && e.errors.length > 0 ? e.errors[0] : e.cause;
  }
  return undefined;
}

function isErrorLike(e: unknown): e is { code?: unknown; errors?: unknown; cause?: unknown; reason?: unknown } {
  return typeof e === 'object' && e !== null;
}

const UNTRUSTED_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_REJECTED',
]);

/** A failed request as the user should read it: what happened, to which URL, and what to try. */
export function toTransportError(err: unknown, url: URL, timeoutMs: number, selection: Selection = {}): TransportError {
  if (err instanceof TransportError) return err;
  const where = url.origin + url.pathname;
  const code = errorCode(err);
  // An aborted or timed-out request rejects with a DOMException, which is an Error in Node.
  const name = err instanceof Error ? err.name : '';
  const raw = err instanceof Error ? err.message : String(err);
  const retrust =
    'if this is a new controller or its CA changed, trust it again with ' +
    `\`${suggestCommand(`ctl login ${url.origin} --ca FILE`, selection)}\`; ` +
    'without a saved profile, set CTL_CA=FILE or CTL_CA_FINGERPRINT=SHA256';
  if (code && UNTRUSTED_CODES.has(code)) {
    return new UntrustedCertificateError(
      `the TLS certificate of ${url.origin} is not trusted (${code})`,
      where,
      retrust,
      code,
    );
  }
  // Trusting another CA would not fix these two, so they are plain transport errors.
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return new TransportError(
      `the TLS certificate of ${url.origin} is not valid for host ${url.hostname}`,
      where,
      'use the host name or address the controller certificate was issued for',
    );
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    const state = code === 'CERT_HAS_EXPIRED' ? 'has expired' : 'is not yet valid';
    return new TransportError(
      `the TLS certificate of ${url.origin} ${state}`,
      where,
      'check the clocks of both machines; the controller may need a new certificate',
    );
  }
  if (name === 'TimeoutError' || name === 'AbortError' || code === 'ETIMEDOUT') {
    return new TransportError(
      `no answer from ${where} within ${timeoutMs < 1000 ? `${timeoutMs}ms` : `${Math.round(timeoutMs / 1000)}s`}`,
      where,
      'check that the controller is running and reachable from here',
    );
  }
  if (code === 'ECONNREFUSED') {
    return new TransportError(
      `cannot connect to ${url.host}: connection refused (${where})`,
      where,
      'check that the controller is running and listening on that port',
    );
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new TransportError(`cannot resolve host ${url.hostname} (${where})`, where, 'check the controller address');
  }
  if (code === 'EPROTO' || code?.startsWith('ERR_SSL_')) {
    // OpenSSL's message is a long internal string; its `reason` ("wrong version number") is what a person can use.
    // A failed socket write carries the reason only inside its message (`...:SSL routines:FUNCTION:REASON:...`).
    const written = /:SSL routines:[^:]*:([^:]+):/.exec(raw)?.[1];
    const reason = isErrorLike(err) && typeof err.reason === 'string' ? err.reason : (written ?? raw);
    return new TransportError(
      `TLS handshake with ${url.origin} failed: ${reason}`,
      where,
      'check that this address serves HTTPS',
    );
  }
  if (code === MALFORMED_ANSWER) {
    return new TransportError(`request to ${where} failed: ${raw}`, where, 'check that the URL points to a controller');
  }
  if (code === 'ECONNRESET' || code === 'EPIPE') {
    return new TransportError(`connection to ${url.origin} closed unexpectedly (${where})`, where);
  }
  return new TransportError(`request to ${where} failed: ${raw}`, where);
}

function parseBody(text: string, contentType: string | undefined, where: string): unknown {
  if (text === '') return undefined;
  const looksJson = contentType?.includes('json') || /^\s*[[{]/.test(text);
  if (!looksJson) return text;
  try {
    return JSON.parse(text);
  } catch {
    if (!contentType?.includes('json')) return text;
    throw new TransportError(
      `the response from ${where} is not valid JSON`,
      where,
      'check that the URL points to a controller',
    );
  }
}

/** What a request sends, the same to whichever controller serves it. */
interface SendParts {
  headers: Record<string, string>;
  body?: string;
}

function unwrap<T>(body: unknown): T {
  return (isRecord(body) && 'data' in body ? body.data : body) as T;
}

/** What one controller made of a request: its answer, or why it gave none. */
type Attempt = { answer: Answer } | { failure: TransportError; retryable: boolean };

export function createApiClient(options: ApiClientOptions): ApiClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const trimmed = (url: string) => url.replace(/\/+$/, '');
  // The controller in use first, then the others in the order given.
  let baseUrls = [...new Set([options.baseUrl, ...(options.fallbackUrls ?? [])].map(trimmed))];
  let token = options.token;
  const transports = new Map<string, Transport>();

  function getTransport(baseUrl: string): Transport {
    let transport = transports.get(baseUrl);
    if (transport) return transport;
    // With `ca`, Node verifies the chain against that bundle only (not the system store): the profile's pin.
    const sessions = options.tlsSessions?.(baseUrl);
    transport = createTransport({ ca: options.caPem, ...options.clientCert, sessions });
    transports.set(baseUrl, transport);
    options.pools?.opened(transport);
    return transport;
  }

  /** One controller's go at the request; a failure says whether the next controller may be asked instead. */
  async function attempt(
    baseUrl: string,
    verb: string,
    path: string,
    opts: RequestOptions,
    send: SendParts,
  ): Promise<Attempt> {
    const url = resolveUrl(baseUrl, path, opts.api, opts.query);
    // Timed only when traced: performance.now() loads Node's perf_hooks (a dozen modules) on first use.
    const started = options.trace ? performance.now() : 0;
    const trace = (outcome: string) =>
      options.trace?.(`${verb} ${url.href} -> ${outcome} (${Math.round(performance.now() - started)} ms)`);
    const exchange = async () => {
      const signal = AbortSignal.timeout(timeoutMs);
      return getTransport(baseUrl).send(url, { method: verb, ...send, signal });
    };
    try {
      const answer = await (options.waiting ? options.waiting(url.host, exchange) : exchange());
      trace(String(answer.status));
      return { answer };
    } catch (err) {
      const failure = toTransportError(err, url, timeoutMs, options.selection);
      trace(`failed: ${failure.message}`);
      return { failure, retryable: mayRetryAfterFailure(verb, err) };
    }
  }

  /** The first answer of the controllers in turn, moving on only while failover.ts allows it for this request. */
  async function firstAnswer(verb: string, path: string, opts: RequestOptions, send: SendParts): Promise<Answer> {
    const failures: { url: string; reason: string }[] = [];
    let last: TransportError | undefined;
    for (const [i, baseUrl] of baseUrls.entries()) {
      const tried = await attempt(baseUrl, verb, path, opts, send);
      const more = i < baseUrls.length - 1;
      if ('answer' in tried) {
        const { status, text } = tried.answer;
        if (more && mayRetryAnswer(verb, status, text)) {
          failures.push({ url: baseUrl, reason: `answered ${status} STORE_UNAVAILABLE` });
          continue;
        }
        if (i > 0) {
          baseUrls = [baseUrl, ...baseUrls.filter((u) => u !== baseUrl)];
          await options.onFailover?.(baseUrl);
        }
        return tried.answer;
      }
      last = tried.failure;
      failures.push({ url: baseUrl, reason: tried.failure.message });
      if (!tried.retryable) break;
    }
    if (failures.length === 1 && last) throw last;
    throw new NoControllerAnsweredError(failures, last?.hint);
  }

  async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    if (!opts.anonymous && token) headers[SESSION_HEADER] = token;
    let body = opts.rawBody;
    if (body === undefined && opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const verb = method.toUpperCase();
    const { status, headers: resHeaders, text } = await firstAnswer(verb, path, opts, { headers, body });
    const url = resolveUrl(baseUrls[0], path, opts.api, opts.query);
    const parsed = parseBody(text, resHeaders['content-type'], url.origin + url.pathname);
    const ok = status >= 200 && status < 300;
    if (!ok) {
      if (opts.throwHttpErrors === false) return { status, headers: resHeaders, body: parsed as T };
      const err = new RequestApiError(apiErrorFromResponse(status, parsed), { method: verb, path });
      throw options.mapError ? await options.mapError(err, { method: verb, path }) : err;
    }
    const issued = resHeaders[SESSION_HEADER];
    if (issued && issued !== token) {
      token = issued;
      options.onSessionToken?.(issued);
    }
    return { status, headers: resHeaders, body: parsed as T };
  }

  return {
    get baseUrl() {
      return baseUrls[0];
    },
    request,
    get: async <T>(path: string, opts?: RequestOptions) => unwrap<T>((await request('GET', path, opts)).body),
    list: async <T>(path: string, q: ListQuery = {}, opts: RequestOptions = {}) => {
      const query = {
        ...opts.query,
        filter: q.filter,
        limit: q.limit,
        offset: q.offset,
        roleFilter: q.roleFilter,
        roleSemantic: q.roleSemantic,
      };
      return (await request<ListEnvelope<T>>('GET', path, { ...opts, query })).body;
    },
    post: async <T>(path: string, body: unknown, opts?: RequestOptions) =>
      unwrap<T>((await request('POST', path, { ...opts, body })).body),
    patch: async <T>(path: string, body: unknown, opts?: RequestOptions) =>
      unwrap<T>((await request('PATCH', path, { ...opts, body })).body),
    put: async <T>(path: string, body: unknown, opts?: RequestOptions) =>
      unwrap<T>((await request('PUT', path, { ...opts, body })).body),
    delete: async <T>(path: string, opts?: RequestOptions) => unwrap<T>((await request('DELETE', path, opts)).body),
  };
}
