import { notFound } from '../../../protocol/errors.js';
import { resource } from '../../../resources/index.js';
import type { Permission } from '../../model/access.js';
import { openSession } from '../../model/resources/session.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import type { Row } from '../../store/repository.js';
import { listResource } from '../kit/crud.js';
import type { Responses, Success } from '../../server/responses.js';
import { standardRoute } from '../kit/describe.js';

const session = resource('session');
/** The client API's session routes: each identity reads, makes and ends its own. */
const CALLER = { api: 'client', access: 'session' } as const;
const ownedBy = (ctx: Ctx) => ({ identityId: ctx.principal!.identityId });

/**
 * Service sessions beyond the generic management list/get/delete: the route path, the client API's view of the
 * caller's own sessions, and the client's create (src/controller/model/resources/session.ts).
 */
export function routes(rt: Runtime): Route[] {
  return [
    {
      method: 'GET',
      path: '/sessions/{id}/route-path',
      api: 'management',
      access: 'admin',
      responds: routePathAnswer,
      handler: (ctx) => routePath(rt, ctx),
    },
    standardRoute(session, 'create', (ctx) => createSession(rt, ctx), CALLER),
    // The client API shows a caller its own sessions only; another identity's session is "not found".
    standardRoute(session, 'list', (ctx) => listResource(rt, session, ctx, { where: ownedBy(ctx) }), CALLER),
    standardRoute(session, 'get', (ctx) => showOwnSession(rt, ctx), CALLER),
    standardRoute(session, 'delete', (ctx) => deleteOwnSession(rt, ctx), CALLER),
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

async function showOwnSession(rt: Runtime, ctx: Ctx) {
  return { data: (await rt.present(session, [await ownSession(rt, ctx)]))[0] };
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

/** Client `POST /sessions`: 201 with the whole session, its token included: the only time it is served. */
async function createSession(rt: Runtime, ctx: Ctx) {
  const body = rt.validators.custom(CREATE_SCHEMA, await ctx.json());
  const request = { serviceId: body.serviceId as string, type: (body.type ?? 'Dial') as Permission, tags: body.tags };
  const { id, token } = await openSession(rt, ctx.principal!, request, ctx.now);
  const [data] = await rt.present(session, [await rt.store.repoFor(session).get(id)]);
  return { status: 201, data: { ...data, token } };
}

function routePathAnswer(r: Responses): Success {
  return r.data('detailSessionRoutePathEnvelope', "the routers of the session's circuit (none without a data plane)", {
    type: 'object',
    properties: { routePath: { type: 'array', items: { type: 'string' } } },
    required: ['routePath'],
  });
}
