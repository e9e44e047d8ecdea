import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Responses, Success } from './responses.js';
import type { Verb } from './schemas.js';

export type ApiName = 'management' | 'client' | 'fabric';

/** Who may call a route: anyone, any fully authenticated session, or admins only. */
export type Access = 'public' | 'session' | 'admin';

/** The caller, resolved by the authentication stage before a handler runs. */
export interface Principal {
  apiSessionId: string;
  identityId: string;
  identityName: string;
  isAdmin: boolean;
  authenticatorId: string;
  token: string;
  expiresAt: Date;
  /** MFA is required of the session and not yet passed: only `partialSession` routes serve it. */
  mfaPending: boolean;
}

export interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  api: ApiName;
  method: string;
  /** Path relative to the API base, normalised (no duplicate or trailing slashes). */
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  requestId: string;
  now: Date;
  /** Set by the authentication stage for routes that need a session. */
  principal?: Principal;
  /** The parsed JSON body (read once, size-limited, prototype-poisoning safe). */
  json(): Promise<unknown>;
  /** The raw body as text (size-limited). */
  text(): Promise<string>;
  /** The client's address, for API sessions. */
  remoteAddress: string;
}

/** What a handler returns: an envelope (`data`, `meta`), one whose `data` is JSON text already, or a raw body. */
export type Reply =
  | { status?: number; data: unknown; meta?: Record<string, unknown> | null; headers?: Record<string, string> }
  | { status?: number; dataJson: string; headers?: Record<string, string> }
  | { status?: number; raw: string | Buffer; contentType: string; headers?: Record<string, string> };

export type Handler = (ctx: Ctx) => Reply | Promise<Reply>;

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Template relative to the API base, e.g. `/identities/{id}`. */
  path: string;
  /** Which API serves it; `both` registers it on each. */
  api: ApiName | 'both';
  access: Access;
  /**
   * A session that has yet to pass MFA may call it (the MFA operations, the current API session); every other
   * route refuses such a session. Decided in one place, the auth stage.
   */
  partialSession?: boolean;
  handler: Handler;
  /** Operation id for the served spec. */
  operationId?: string;
  /**
   * What the served spec says the route answers on success, described where the route is built (the words are in
   * server/responses.ts). A route without it has no success response in the document, which its test refuses.
   */
  responds?: (r: Responses) => Success;
  /** The body the served spec says the route takes: the write model of a resource for one verb. */
  takes?: { resource: string; verb: Verb };
}
