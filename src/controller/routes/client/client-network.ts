import { headerOf } from '../../server/auth-stage.js';
import { ApiError } from '../../../protocol/errors.js';
import { resource } from '../../../resources/index.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Handler, Route } from '../../server/types.js';
import { accessToService, edgeRoutersFor } from '../../model/access.js';
import { listMeta } from '../kit/crud.js';
import { toWire } from '../../model/present.js';
import { listParams } from '../kit/query.js';
import { edgeRouterSummary } from '../../model/resources/session.js';
import { checkSessionToken } from '../../model/session-token.js';
import { ref, type Responses, type Success } from '../../server/responses.js';

const terminator = resource('terminator');
const edgeRouter = resource('edge-router');

/**
 * What an SDK asks of the network beyond its services: the controller's listening protocols, the edge routers and
 * terminators of a service it may use, and the per-client request budget of the client API.
 */

/**
 * A service the caller may dial or bind, or 404: one it may not use is as unknown as one that does not exist. The
 * 404 carries no cause, as OpenZiti's answer here does (its RespondWithNotFound, unlike the detail's not-found error).
 */
async function usableService(rt: Runtime, ctx: Ctx): Promise<string> {
  const { permissions } = await accessToService(rt, ctx.principal!.identityId, ctx.params.id);
  if (permissions.length === 0) throw new ApiError('NOT_FOUND');
  return ctx.params.id;
}

/**
 * `GET /services/{id}/edge-routers`: where the caller can reach the service (its and the service's router policies).
 */
async function serviceEdgeRouters(rt: Runtime, ctx: Ctx) {
  // The token first, as OpenZiti checks it: a foreign token is 401 whatever the service.
  const token = headerOf(ctx.req, 'session-token');
  if (token !== undefined) await checkSessionToken(rt, ctx.principal!, token, ctx.params.id);
  const serviceId = await usableService(rt, ctx);
  const { shared } = await edgeRoutersFor(rt, ctx.principal!.identityId, serviceId);
  const repo = rt.store.repoFor(edgeRouter);
  const page = await repo.list({ ...listParams(ctx.query), scope: { ids: shared } });
  const routers = await rt.present(edgeRouter, page.rows);
  return { data: { edgeRouters: routers.map(edgeRouterSummary) }, meta: listMeta(page, repo.filterableFields) };
}

/**
 * `GET /services/{id}/terminators`: where the service is hosted, as the client read model shows it (which router and
 * identity, never the address). A service the caller may not use is 404, as OpenZiti's listClientTerminators reads
 * the service for the identity first (the Swagger lists no 404 here; OpenZiti answers it all the same).
 */
async function serviceTerminators(rt: Runtime, ctx: Ctx) {
  const repo = rt.store.repoFor(terminator);
  const serviceId = await usableService(rt, ctx);
  const page = await repo.list({ ...listParams(ctx.query), scope: { where: { service: serviceId } } });
  const services = rt.store.repo('service');
  const names = page.rows.length ? await services.findAll({ id: serviceId }, { columns: ['name'] }) : [];
  return {
    data: page.rows.map((row) => {
      const base = toWire(terminator, row);
      return {
        id: row.id,
        createdAt: base.createdAt,
        updatedAt: base.updatedAt,
        tags: base.tags ?? {},
        _links: base._links,
        identity: (row.identity as string | null) ?? '',
        routerId: row.router,
        serviceId: row.service,
        service: { id: row.service, name: names[0]?.name ?? '', _links: {} },
      };
    }),
    meta: listMeta(page, repo.filterableFields),
  };
}

/** `GET /protocols`: the controller's listening edge protocols, by name, with the address clients reach each on. */
function protocols(rt: Runtime) {
  const url = new URL(rt.config.publicUrl);
  return { data: { https: { address: `${url.hostname}:${url.port || '443'}` } } };
}

export function routes(rt: Runtime): Route[] {
  return [
    {
      method: 'GET',
      path: '/services/{id}/edge-routers',
      api: 'client',
      access: 'session',
      responds: serviceEdgeRoutersAnswer,
      handler: (ctx) => serviceEdgeRouters(rt, ctx),
    },
    {
      method: 'GET',
      path: '/services/{id}/terminators',
      api: 'client',
      access: 'session',
      responds: serviceTerminatorsAnswer,
      handler: (ctx) => serviceTerminators(rt, ctx),
    },
    {
      method: 'GET',
      path: '/protocols',
      api: 'client',
      access: 'public',
      responds: protocolsAnswer,
      handler: () => protocols(rt),
    },
  ];
}

/**
 * The client API operations OpenZiti lists 429 for (docs: the client operations table): each spends one request of
 * the caller's budget (per API session; per address before there is one). Operations without 429 in the table
 * (version, specs, own identity and authenticators, MFA but its completion, getting a session) are never refused.
 * Authentication has its own budget of failed logins (src/controller/auth/throttle.ts), which answers its 429.
 */
const BUDGETED = new Set([
  'GET /external-jwt-signers',
  'GET /protocols',
  'POST /authenticate/mfa',
  'GET /controllers',
  'GET /current-api-session/certificates',
  'POST /current-api-session/certificates',
  'GET /current-api-session/certificates/{id}',
  'DELETE /current-api-session/certificates/{id}',
  'GET /current-api-session/service-updates',
  'GET /current-identity/edge-routers',
  'POST /enroll',
  'POST /enroll/ca',
  'POST /enroll/challenge',
  'POST /enroll/erott',
  'POST /enroll/extend/router',
  'POST /enroll/ott',
  'POST /enroll/ottca',
  'POST /enroll/token',
  'POST /enroll/updb',
  'POST /posture-response',
  'POST /posture-response-bulk',
  'GET /services',
  'GET /services/{id}',
  'PUT /services/{id}',
  'PATCH /services/{id}',
  'DELETE /services/{id}',
  'GET /services/{id}/edge-routers',
  'GET /services/{id}/terminators',
  'GET /sessions',
  'POST /sessions',
  'DELETE /sessions/{id}',
]);

/** The route with the client budget in front of its handler, when the client API lists 429 for it. */
export function withClientBudget(rt: Runtime, route: Route): Route {
  if ((route.api !== 'client' && route.api !== 'both') || !BUDGETED.has(`${route.method} ${route.path}`)) return route;
  const handler: Handler = async (ctx) => {
    if (ctx.api !== 'client') return route.handler(ctx);
    await rt.client.spend(
      ctx.principal ? { apiSessionId: ctx.principal.apiSessionId } : { address: ctx.remoteAddress },
    );
    return route.handler(ctx);
  };
  return { ...route, handler };
}

function serviceEdgeRoutersAnswer(r: Responses): Success {
  const router = { type: 'object', properties: { name: { type: 'string' }, supportedProtocols: { type: 'object' } } };
  return r.page('listServiceEdgeRoutersEnvelope', 'the edge routers the caller may reach the service through', {
    type: 'object',
    properties: { edgeRouters: { type: 'array', items: router } },
    required: ['edgeRouters'],
  });
}

function serviceTerminatorsAnswer(r: Responses): Success {
  const text = { type: 'string' };
  return r.page('listClientTerminatorsEnvelope', "the service's terminators, as a client sees them (no addresses)", {
    type: 'array',
    items: {
      type: 'object',
      properties: { id: text, identity: text, routerId: text, serviceId: text, service: ref('entityRef') },
      required: ['id', 'identity', 'routerId', 'serviceId', 'service'],
    },
  });
}

function protocolsAnswer(r: Responses): Success {
  return r.data('listProtocolsEnvelope', 'the listening edge protocols by name, with their addresses', {
    type: 'object',
    additionalProperties: { type: 'object', properties: { address: { type: 'string' } }, required: ['address'] },
  });
}
