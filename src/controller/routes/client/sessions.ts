import { ApiError, invalidField, notFound } from '../../../protocol/errors.js';
import { hashToken, newSessionId } from '../../auth/api-sessions.js';
import { resource } from '../../../resources/index.js';
import type { ResourceBehaviour } from '../../model/behaviour.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import type { Row } from '../../store/repository.js';
import { accessToService, edgeRoutersFor, type Permission } from '../../model/access.js';
import { listResource } from '../kit/crud.js';
import { policiesPosture } from '../../model/posture/access.js';
import { sessionToken } from '../../model/session-token.js';
import { entityRef, toWire } from '../../model/present.js';
import type { Responses, Success } from '../../server/responses.js';
import { answers } from '../kit/describe.js';

const session = resource('session');
const servicePolicy = resource('service-policy');
const edgeRouter = resource('edge-router');
const apiSession = resource('api-session');

/**
 * Service sessions beyond the generic management list/get/delete: their read model (policies by name, the edge
 * routers the identity may use for the service, no token), the route path, and the client API's view of the
 * caller's own sessions, and the client's create.
 */
function sessionRoutes(rt: Runtime): Route[] {
  return [
    {
      method: 'GET',
      path: '/sessions/{id}/route-path',
      api: 'management',
      access: 'admin',
      responds: routePathAnswer,
      handler: (ctx) => routePath(rt, ctx),
    },
    {
      method: 'POST',
      path: '/sessions',
      api: 'client',
      access: 'session',
      responds: answers.created(session),
      takes: { resource: session.name, verb: 'create' },
      handler: (ctx) => createSession(rt, ctx),
    },
    // The client API shows a caller its own sessions only; another identity's session is "not found".
    {
      method: 'GET',
      path: '/sessions',
      api: 'client',
      access: 'session',
      responds: answers.list(session),
      handler: (ctx) => listResource(rt, session, ctx, { where: { identityId: ctx.principal!.identityId } }),
    },
    {
      method: 'GET',
      path: '/sessions/{id}',
      api: 'client',
      access: 'session',
      responds: answers.detail(session),
      handler: async (ctx) => ({ data: (await rt.present(session, [await ownSession(rt, ctx)]))[0] }),
    },
    {
      method: 'DELETE',
      path: '/sessions/{id}',
      api: 'client',
      access: 'session',
      responds: answers.deleted(session),
      handler: (ctx) => deleteOwnSession(rt, ctx),
    },
  ];
}

/**
 * The routers a session's circuits take. OpenZiti answers from its live circuits (an empty list when there are
 * none, and for an unknown id too); this controller has no data plane, so no session has a circuit: the path is
 * always empty. An unknown id is 404 here, as for every other `{id}` route.
 */
async function routePath(rt: Runtime, ctx: Ctx) {
  await rt.store.repoFor(session).get(ctx.params.id);
  return { data: { routePath: [] as string[] } };
}

async function ownSession(rt: Runtime, ctx: Ctx): Promise<Row> {
  const row = await rt.store.repoFor(session).find(ctx.params.id);
  if (!row || row.identityId !== ctx.principal!.identityId) throw notFound('session', ctx.params.id);
  return row;
}

async function deleteOwnSession(rt: Runtime, ctx: Ctx) {
  const row = await ownSession(rt, ctx);
  await rt.writes.delete(session.name, row);
  return { data: {} };
}

/** The client's create body: `type` defaults to Dial, as in OpenZiti; fields it does not know are ignored, as there. */
const CREATE_SCHEMA = {
  type: 'object',
  properties: {
    serviceId: { type: 'string', minLength: 1 },
    type: { type: 'string', enum: ['Dial', 'Bind'] },
    tags: { type: ['object', 'null'] },
  },
  required: ['serviceId'],
};

/**
 * Posture of the granting policies, as OpenZiti's EvaluatePostureForService: access passes when ANY granting policy
 * has all its posture checks passing (a policy without checks passes), evaluated against the posture the caller's
 * client reported (src/controller/posture). When none passes: 409 INVALID_POSTURE, its cause the failed checks by
 * policy id, in OpenZiti's shape, and the refusal is kept for `GET /identities/{id}/failed-service-requests`.
 * Returns the passing policies (the session's `servicePolicies`).
 */
async function passingPolicies(
  rt: Runtime,
  ctx: Ctx,
  serviceId: string,
  type: Permission,
  policyIds: string[],
): Promise<string[]> {
  const { identityId, apiSessionId } = ctx.principal!;
  const posture = await policiesPosture(rt, identityId, apiSessionId, policyIds, ctx.now);
  const passing = policyIds.filter((id) => posture.get(id)!.isPassing);
  if (passing.length > 0) return passing;
  const data = Object.fromEntries(
    policyIds.map((id) => [
      id,
      posture.get(id)!.checks.map((c) => ({ id: c.check.id, typeId: c.check.typeId, isPassing: c.outcome.isPassing })),
    ]),
  );
  const names = new Map(
    (await rt.store.repoFor(servicePolicy).findAll({ id: policyIds }, { columns: ['name'] })).map((p) => [
      p.id,
      p.name as string,
    ]),
  );
  const serviceRow = await rt.store.repo('service').findOne({ id: serviceId }, { columns: ['name'] });
  await rt.posture.recordFailure(identityId, {
    apiSessionId,
    serviceId,
    serviceName: (serviceRow?.name as string | undefined) ?? '',
    sessionType: type,
    when: ctx.now.toISOString(),
    policyFailures: policyIds.map((id) => ({
      policyId: id,
      policyName: names.get(id) ?? '',
      checks: posture
        .get(id)!
        .checks.filter((c) => !c.outcome.isPassing)
        .map((c) => ({
          postureCheckId: c.check.id,
          postureCheckName: c.check.name,
          postureCheckType: c.check.typeId,
          expectedValue: c.outcome.expected,
          actualValue: c.outcome.actual,
        })),
    })),
  });
  throw new ApiError('INVALID_POSTURE', {
    cause: { message: `Failed to pass posture checks for service policies: [${policyIds.join(' ')}]`, data },
  });
}

/**
 * Client `POST /sessions`, in OpenZiti's order: a service the caller cannot dial or bind at all is 404; one it may
 * use, but not with this type, 400 naming serviceId ("service not found", as OpenZiti says it); then posture (409
 * INVALID_POSTURE), then a shared edge router (400 NO_EDGE_ROUTERS_AVAILABLE). An API session holds one session per
 * service and type: asking again answers the same session (with a freshly signed token), as OpenZiti does.
 * 201 with the whole session, its token included: the only time it is served.
 */
async function createSession(rt: Runtime, ctx: Ctx) {
  const body = rt.validators.custom(CREATE_SCHEMA, await ctx.json());
  const { identityId, apiSessionId } = ctx.principal!;
  const serviceId = body.serviceId as string;
  const type = (body.type ?? 'Dial') as Permission;
  const { permissions, granting } = await accessToService(rt, identityId, serviceId);
  if (permissions.length === 0) throw notFound('service', serviceId);
  if (!permissions.includes(type)) throw invalidField('serviceId', 'service not found', serviceId);
  const servicePolicies = await passingPolicies(rt, ctx, serviceId, type, granting[type]);
  if ((await edgeRoutersFor(rt, identityId, serviceId)).shared.length === 0)
    throw new ApiError('NO_EDGE_ROUTERS_AVAILABLE');

  const repo = rt.store.repoFor(session);
  const now = ctx.now.toISOString();
  const made = await rt.store.tx(async (): Promise<{ id: string; token?: string }> => {
    const existing = (await repo.findAll({ apiSessionId, serviceId, type }, { columns: ['id'] }))[0];
    if (existing) return { id: existing.id };
    const id = newSessionId();
    const token = await sessionToken(rt, { id, serviceId, apiSessionId, identityId, type }, ctx.now);
    const values = {
      apiSessionId,
      identityId,
      serviceId,
      type,
      servicePolicies,
      tags: body.tags ?? {},
      tokenHash: hashToken(token),
    };
    await rt.writes.insert(session.name, values, { id, now });
    return { id, token };
  });
  const { id } = made;
  // A session asked for again gets a token with a later `iat` (the stored hash stays the first's): tokens are
  // checked by signature and `jti`.
  const token = made.token ?? (await sessionToken(rt, { id, serviceId, apiSessionId, identityId, type }, ctx.now));
  const [data] = await rt.present(session, [await repo.get(id)]);
  return { status: 201, data: { ...data, token } };
}

/**
 * The edge routers a session may use: those the identity's edge router policies and the service's service edge
 * router policies both allow (OpenZiti's `ListForIdentityAndService`), online or not, each with its state as the
 * edge router read model gives it. The access index decides, as it does for the relation lists.
 */
async function sessionEdgeRouters(
  rt: Runtime,
  identityId: string,
  serviceId: string,
): Promise<Record<string, unknown>[]> {
  const ids = (await edgeRoutersFor(rt, identityId, serviceId)).shared;
  if (ids.length === 0) return [];
  const routers = await rt.present(edgeRouter, await rt.store.repoFor(edgeRouter).findAll({ id: ids }));
  // `urls` is OpenZiti's older name for supportedProtocols, still read by older SDKs.
  return routers.map((r) => ({ ...edgeRouterSummary(r), urls: r.supportedProtocols ?? {} }));
}

/** An edge router as sessions and the service edge router list show it (OpenZiti's commonEdgeRouterProperties). */
export function edgeRouterSummary(r: Record<string, unknown>): Record<string, unknown> {
  return {
    name: r.name,
    hostname: r.hostname ?? '',
    isOnline: r.isOnline ?? false,
    cost: r.cost ?? 0,
    noTraversal: r.noTraversal ?? false,
    disabled: r.disabled ?? false,
    syncStatus: r.syncStatus ?? 'SYNC_UNKNOWN',
    supportedProtocols: r.supportedProtocols ?? {},
  };
}

/** The session read model, with the names of its policies and its edge routers fetched once per page. */
async function presentSessions(rows: Row[], rt: Runtime): Promise<Record<string, unknown>[]> {
  if (rows.length === 0) return [];
  const policyIds = [...new Set(rows.flatMap((r) => (r.servicePolicies as string[] | null) ?? []))];
  const policies = new Map(
    policyIds.length === 0
      ? []
      : (await rt.store.repoFor(servicePolicy).findAll({ id: policyIds }, { columns: ['name'] })).map((p) => [
          p.id,
          p.name as string,
        ]),
  );
  const routers = new Map<string, Promise<Record<string, unknown>[]>>();
  const routersOf = (row: Row) => {
    const key = `${row.identityId}\n${row.serviceId}`;
    if (!routers.has(key)) routers.set(key, sessionEdgeRouters(rt, row.identityId as string, row.serviceId as string));
    return routers.get(key)!;
  };
  return Promise.all(
    rows.map(async (row) => ({
      ...toWire(session, row),
      apiSession: entityRef(apiSession, row.apiSessionId as string, ''),
      servicePolicies: ((row.servicePolicies as string[] | null) ?? [])
        .filter((id) => policies.has(id))
        .map((id) => entityRef(servicePolicy, id, policies.get(id))),
      token: '',
      edgeRouters: await routersOf(row),
    })),
  );
}

export const sessionBehaviour: ResourceBehaviour = {
  resource: 'session',
  routes: sessionRoutes,
  present: presentSessions,
};

function routePathAnswer(r: Responses): Success {
  return r.data('detailSessionRoutePathEnvelope', "the routers of the session's circuit (none without a data plane)", {
    type: 'object',
    properties: { routePath: { type: 'array', items: { type: 'string' } } },
    required: ['routePath'],
  });
}
