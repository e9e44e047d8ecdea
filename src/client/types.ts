import type { ListEnvelope } from '../protocol/envelope.js';
import { ApiError } from '../protocol/errors.js';

/** Which of the controller's two APIs a call goes to. */
export type ApiName = 'management' | 'client';

export interface RequestOptions {
  api?: ApiName;
  query?: Record<string, string | number | boolean | string[] | undefined>;
  /** JSON body (serialised by the client). */
  body?: unknown;
  /** Extra headers (e.g. `content-type: text/plain` with `rawBody`). */
  headers?: Record<string, string>;
  rawBody?: string;
  /** Send without the session token (version, authenticate, well-known). */
  anonymous?: boolean;
  /** Return non-2xx responses instead of throwing ApiError (the raw `ctl api` command prints them as they are). */
  throwHttpErrors?: boolean;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON body (the whole envelope), or the text for non-JSON responses. */
  body: T;
}

export interface ListQuery {
  filter?: string;
  limit?: number;
  offset?: number;
  roleFilter?: string[];
  roleSemantic?: string;
}

/**
 * An authenticated connection to one controller. Errors: a non-2xx response throws ApiError (protocol/errors)
 * carrying the controller's code, message and cause; transport and TLS failures throw TransportError.
 */
export interface ApiClient {
  /** e.g. https://ctrl.example:1280 */
  readonly baseUrl: string;
  request<T = unknown>(method: string, path: string, opts?: RequestOptions): Promise<ApiResponse<T>>;
  /** GET and unwrap `data`. */
  get<T = unknown>(path: string, opts?: RequestOptions): Promise<T>;
  list<T = unknown>(path: string, query?: ListQuery, opts?: RequestOptions): Promise<ListEnvelope<T>>;
  post<T = unknown>(path: string, body: unknown, opts?: RequestOptions): Promise<T>;
  patch<T = unknown>(path: string, body: unknown, opts?: RequestOptions): Promise<T>;
  put<T = unknown>(path: string, body: unknown, opts?: RequestOptions): Promise<T>;
  delete<T = unknown>(path: string, opts?: RequestOptions): Promise<T>;
}

/** The controller could not be reached or spoke something other than the API (TLS failure, refused, timeout). */
export class TransportError extends Error {
  constructor(
    message: string,
    readonly url: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

/** An error answer of the controller, with the request it answered: messages name what was refused (the resource). */
export class RequestApiError extends ApiError {
  constructor(
    err: ApiError,
    readonly request: { method: string; path: string },
  ) {
    super(err.code, { status: err.status, message: err.message, cause: err.cause, requestId: err.requestId });
  }
}
