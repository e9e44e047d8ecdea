import { notFound } from '../../protocol/errors.js';
import { resource, type ResourceDef } from '../../resources/index.js';
import type { ResourceBehaviour } from '../registry.js';
import type { Runtime } from '../runtime.js';
import type { Ctx, Route } from '../server/types.js';
import type { Row } from '../store/repository.js';
import { edgeRoutersFor } from './access.js';
import { listResource } from './crud.js';
import { entityRef, toWire } from './present.js';

const session = resource('session');
const identity = resource('identity');
const service = resource('service');
const servicePolicy = resource('service-policy');
const edgeRouter = resource('edge-router');
const apiSession = resource('api-session');

/**
 * Service sessions beyond the generic management list/get/delete: their read model (policies by name, the edge
 * routers the identity may use for the service, no token), the route path, and the client API's view of the
 * caller's own sessions. Creating one (client `POST /sessions`) is the client API's part.
 */
export function sessionRoutes(rt: Runtime): Route[] {
  return [
    { method: 'GET', path: '/sessions/{id}/route-path', api: 'management', access: 'admin', handler: (ctx) => routePath(rt, ctx) },
    // The client API shows a caller its own sessions only; another identity's session is "not found".
    { method: 'GET', path: '/sessions', api: 'client', access: 'session', handler: (ctx) => listResource(rt, session, ctx, { where: { identityId: ctx.principal!.identityId } }) },
    { method: 'GET', path: '/sessions/{id}', api: 'client', access: 'session', handler: async (ctx) => ({ data: (await rt.present(session, [await ownSession(rt, ctx)]))[0] }) },
    { method: 'DELETE', path: '/sessions/{id}', api: 'client', access: 'session', handler: (ctx) => deleteOwnSession(rt, ctx) },
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
  await rt.store.tx(() => rt.store.repoFor(session).delete(row.id));
  return { data: {} };
}

/**
 * The edge routers a session may use: those the identity's edge router policies and the service's service edge
 * router policies both allow (OpenZiti's `ListForIdentityAndService`), online or not, each with its state as the
 * edge router read model gives it. The access index decides, as it does for the relation lists.
 */
export async function sessionEdgeRouters(rt: Runtime, identityId: string, serviceId: string): Promise<Record<string, unknown>[]> {
  const ids = (await edgeRoutersFor(rt, identityId, serviceId)).shared;
  if (ids.length === 0) return [];
  const routers = await rt.present(edgeRouter, await rt.store.repoFor(edgeRouter).findAll({ id: ids }));
  return routers.map((r) => ({
    name: r.name,
    hostname: r.hostname ?? '',
    isOnline: r.isOnline ?? false,
    cost: r.cost ?? 0,
    noTraversal: r.noTraversal ?? false,
    disabled: r.disabled ?? false,
    syncStatus: r.syncStatus ?? 'SYNC_UNKNOWN',
    supportedProtocols: r.supportedProtocols ?? {},
    // `urls` is OpenZiti's older name for supportedProtocols, still read by older SDKs.
    urls: r.supportedProtocols ?? {},
  }));
}

/** The session read model, with the names of its policies and its edge routers fetched once per page. */
export async function presentSessions(rows: Row[], rt: Runtime): Promise<Record<string, unknown>[]> {
  if (rows.length === 0) return [];
  const policyIds = [...new Set(rows.flatMap((r) => (r.servicePolicies as string[] | null) ?? []))];
  const policies = new Map(
    policyIds.length === 0 ? [] : (await rt.store.repoFor(servicePolicy).findAll({ id: policyIds }, { columns: ['name'] })).map((p) => [p.id, p.name as string]),
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
      servicePolicies: ((row.servicePolicies as string[] | null) ?? []).filter((id) => policies.has(id)).map((id) => entityRef(servicePolicy, id, policies.get(id))),
      token: '',
      edgeRouters: await routersOf(row),
    })),
  );
}

export const sessionBehaviour: ResourceBehaviour = { resource: 'session', routes: sessionRoutes, present: presentSessions };
