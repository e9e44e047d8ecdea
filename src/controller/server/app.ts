import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CLIENT_BASE, FABRIC_BASE, MANAGEMENT_BASE } from '../../protocol/envelope.js';
import { ApiError } from '../../protocol/errors.js';
import { requireSecondaryExtJwt } from '../model/auth/ext-jwt.js';
import type { Runtime } from '../runtime.js';
import { authorise } from './auth-stage.js';
import { bodyLimitFor, decodeUtf8, parseJson, readBody } from './body.js';
import { applyCors, isPreflight, normaliseOrigin } from './cors.js';
import { toApiError } from './errors.js';
import { sendError, sendReply } from './respond.js';
import { normalisePath, refuseImpossibleIds, Router } from './router.js';
import type { StaticSite } from './static.js';
import type { ApiName, Ctx, Route } from './types.js';

/** Request ids: a random prefix per process and a counter, unique and cheap (no entropy spent per request). */
const requestIdPrefix = randomBytes(3).toString('base64url');
let requestCounter = 0;
function nextRequestId(): string {
  return `${requestIdPrefix}${(requestCounter++).toString(36)}`;
}

/**
 * Maps a request path to an API and a path relative to its base. Paths outside `/edge/...` (`/version`, `/`,
 * `/.well-known/est/cacerts`) and the legacy `/edge/v1` prefix belong to the client API, as in OpenZiti.
 */
export function locate(path: string): { api: ApiName; path: string } | undefined {
  const p = normalisePath(path);
  for (const { base, api } of BASES) {
    if (p === base || (p.startsWith(base) && p.charCodeAt(base.length) === SLASH)) {
      return api ? { api, path: p.slice(base.length) || '/' } : undefined;
    }
  }
  return { api: 'client', path: p };
}

const SLASH = '/'.charCodeAt(0);
/** Where each API is served, in the order tried; anything else under `/edge` is no API's. */
const BASES: readonly { base: string; api?: ApiName }[] = [
  { base: MANAGEMENT_BASE, api: 'management' },
  { base: CLIENT_BASE, api: 'client' },
  { base: FABRIC_BASE, api: 'fabric' },
  { base: '/edge/v1', api: 'client' },
  { base: '/edge' },
];

/** The last time `isoText` wrote, in Unix milliseconds, and its text. */
let lastIsoMs = Number.NaN;
let lastIsoText = '';

/**
 * A time as ISO 8601 text, written once per millisecond: every authenticated answer says when its session expires,
 * and `toISOString` took about 0.4 µs of each, where requests under load come many to a millisecond.
 */
function isoText(at: Date): string {
  const ms = at.getTime();
  if (ms !== lastIsoMs) {
    lastIsoText = at.toISOString();
    lastIsoMs = ms;
  }
  return lastIsoText;
}

export interface App {
  router: Router;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** Builds the request pipeline: CORS, routing, authentication stage, handler, one error path. */
export function createApp(rt: Runtime, routes: Route[], site?: StaticSite): App {
  const router = new Router();
  for (const route of routes) router.add(route);
  const corsOrigins = new Set((rt.config.corsOrigins ?? []).map(normaliseOrigin));
  const expirationSeconds = String(Math.round(rt.config.sessionTimeoutMs / 1000));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = nextRequestId();
    const started = Date.now();
    try {
      applyCors(req, res, corsOrigins);
      if (isPreflight(req)) {
        res.statusCode = 200;
        res.end();
        return;
      }
      // Split by hand: `new URL` would read a leading `//edge/...` as a host name.
      const target = req.url ?? '/';
      const q = target.indexOf('?');
      const pathname = q < 0 ? target : target.slice(0, q);
      if (site?.owns(pathname)) return await site.serve(req, res, pathname);
      const query = new URLSearchParams(q < 0 ? '' : target.slice(q + 1));
      const located = locate(pathname);
      const method = req.method ?? 'GET';
      if (!located)
        throw new ApiError('NOT_FOUND', { cause: { code: 'UNHANDLED', message: `no route for ${pathname}` } });
      const now = rt.clock();
      // Controllers sharing a database: what others wrote drops what this one keeps, before anything kept is used.
      const caughtUp = rt.store.catchUp();
      if (caughtUp) await caughtUp;
      let matched: ReturnType<Router['match']>;
      try {
        matched = router.match(located.api, method === 'HEAD' ? 'GET' : method, located.path);
      } catch (err) {
        // Everything under the management API needs an admin, so a non-admin asking for a path we do not serve is
        // told 401 like for any other management path: route existence is not disclosed before authorisation.
        if (located.api === 'management') await authorise(req, 'admin', rt.apiSessions, now);
        throw err;
      }
      const { route, params } = matched;
      const ctx = makeCtx(
        req,
        res,
        { api: located.api, method, path: located.path, params, query, requestId, now },
        bodyLimitFor(route.access),
      );
      ctx.principal = await authorise(req, route.access, rt.apiSessions, now, route.partialSession);
      refuseImpossibleIds(params);
      await requireSecondaryExtJwt(rt, req, ctx.principal, route, now);
      if (ctx.principal) {
        res.setHeader('expiration-seconds', expirationSeconds);
        res.setHeader('expires-at', isoText(ctx.principal.expiresAt));
      }
      sendReply(res, await route.handler(ctx));
    } catch (err) {
      const apiError = toApiError(err);
      if (apiError.status >= 500) rt.log(`request ${requestId} failed: ${(err as Error)?.stack ?? String(err)}`);
      sendError(res, apiError, requestId);
    } finally {
      // The path only: a query string may carry filters with names an operator would not want in a log file.
      rt.accessLog?.(
        `${req.method} ${(req.url ?? '/').split('?')[0]} ${res.statusCode} ${Date.now() - started}ms ${requestId}`,
      );
    }
  }

  return { router, handle };
}

function makeCtx(
  req: IncomingMessage,
  res: ServerResponse,
  base: Pick<Ctx, 'api' | 'method' | 'path' | 'params' | 'query' | 'requestId' | 'now'>,
  bodyLimit: number,
): Ctx {
  let body: Promise<Buffer> | undefined;
  const raw = () => (body ??= readBody(req, bodyLimit));
  // Named one by one: a spread of `base` with more fields after it took V8's slow path on every request.
  return {
    api: base.api,
    method: base.method,
    path: base.path,
    params: base.params,
    query: base.query,
    requestId: base.requestId,
    now: base.now,
    req,
    res,
    remoteAddress: req.socket.remoteAddress ?? '',
    json: async () => parseJson(decodeUtf8(await raw())),
    text: async () => decodeUtf8(await raw()),
  };
}
