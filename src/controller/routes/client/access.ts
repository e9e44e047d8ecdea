import { notFound } from '../../../protocol/errors.js';
import { resource } from '../../../resources/index.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import type { Row, Scope } from '../../store/repository.js';
import type { Permission } from '../../model/posture/access.js';
import { listResource } from '../kit/crud.js';
import { entityRef } from '../../model/present.js';

const service = resource('service');
const edgeRouter = resource('edge-router');
const identity = resource('identity');

/** The service policies of each type that select an identity: what every access question starts from. */
export async function identityServicePolicies(rt: Runtime, identityId: string): Promise<{ dial: string[]; bind: string[] }> {
  const index = rt.store.roleIndex('service-policy', 'identityRoles');
  const [dial, bind] = await Promise.all([index.policiesSelecting(identityId, { type: 'Dial' }), index.policiesSelecting(identityId, { type: 'Bind' })]);
  return { dial, bind };
}

/** `permissions` of each service for the identity: the subset of Bind and Dial its policies grant (wire-protocol section 4). */
export async function permissionsOf(rt: Runtime, identityId: string, serviceIds: readonly string[]): Promise<Map<string, Permission[]>> {
  const { dial, bind } = await identityServicePolicies(rt, identityId);
  const services = rt.store.roleIndex('service-policy', 'serviceRoles');
  const [dialable, bindable] = await Promise.all([services.selectedAmong(dial, serviceIds), services.selectedAmong(bind, serviceIds)]);
  return new Map(serviceIds.map((id) => [id, [...(bindable.has(id) ? ['Bind' as const] : []), ...(dialable.has(id) ? ['Dial' as const] : [])]]));
}

/**
 * The identity's permissions on one service, none when the service does not exist: to a client, a service it may
 * not use is as unknown as one that does not exist (404 either way).
 */
export async function permissionsOnService(rt: Runtime, identityId: string, serviceId: string): Promise<Permission[]> {
  const granted = (await permissionsOf(rt, identityId, [serviceId])).get(serviceId) ?? [];
  return granted.length > 0 && (await rt.store.repo('service').exists({ id: serviceId })) ? granted : [];
}

/** The services an identity may dial or bind, as a list scope. */
export async function accessibleServices(rt: Runtime, identityId: string): Promise<Scope> {
  const { dial, bind } = await identityServicePolicies(rt, identityId);
  return { selectedBy: { index: rt.store.roleIndex('service-policy', 'serviceRoles'), policyIds: [...new Set([...dial, ...bind])] } };
}

/**
 * Edge routers the current identity may connect to, as OpenZiti's tunnelers ask for them: the enrolled
 * (`isVerified`) routers, since a router that has not enrolled cannot accept anyone; every one of them for admins,
 * for others those their edge router policies select (wire-protocol section 4; OpenZiti's listEdgeRouters).
 */
async function ownEdgeRouters(rt: Runtime, ctx: Ctx) {
  const { identityId, isAdmin } = ctx.principal!;
  if (isAdmin) return listResource(rt, edgeRouter, ctx, { where: { isVerified: true } });
  const policyIds = await rt.store.roleIndex('edge-router-policy', 'identityRoles').policiesSelecting(identityId);
  const selected = await rt.store.roleIndex('edge-router-policy', 'edgeRouterRoles').selectedIds(policyIds);
  const verified = selected.length ? await rt.store.repoFor(edgeRouter).findAll({ id: selected, isVerified: true }, { columns: ['id'] }) : [];
  return listResource(rt, edgeRouter, ctx, { ids: verified.map((r) => r.id) });
}

/**
 * The edge routers an identity may use (its edge router policies) and a service may be reached through (its service
 * edge router policies), and those in both: where a session for the pair can go (OpenZiti's ListForIdentityAndService).
 */
export async function edgeRoutersFor(rt: Runtime, identityId: string, serviceId: string): Promise<{ identity: string[]; service: Set<string>; shared: string[] }> {
  // The identity's side and the service's side are independent: read side by side (session create waits on this).
  const [identity, serviceRouters] = await Promise.all([
    rt.store.roleIndex('edge-router-policy', 'identityRoles').policiesSelecting(identityId).then((ids) => rt.store.roleIndex('edge-router-policy', 'edgeRouterRoles').selectedIds(ids)),
    rt.store.roleIndex('service-edge-router-policy', 'serviceRoles').policiesSelecting(serviceId).then((ids) => rt.store.roleIndex('service-edge-router-policy', 'edgeRouterRoles').selectedIds(ids)),
  ]);
  const service = new Set(serviceRouters);
  return { identity, service, shared: identity.filter((id) => service.has(id)) };
}

/** What it takes for an identity to use a service, and what is missing (policy advice, `ctl policy explain`). */
async function policyAdvice(rt: Runtime, ctx: Ctx) {
  const who = await rt.store.repoFor(identity).get(ctx.params.id);
  const what = await rt.store.repoFor(service).get(ctx.params.serviceId);
  const permissions = (await permissionsOf(rt, who.id, [what.id])).get(what.id)!;
  const { identity: identityRouters, service: serviceRouters, shared } = await edgeRoutersFor(rt, who.id, what.id);
  const routers: Row[] = shared.length ? await rt.store.repoFor(edgeRouter).findAll({ id: shared }) : [];
  const presented = await rt.present(edgeRouter, routers);
  return {
    data: {
      identityId: who.id,
      identity: entityRef(identity, who.id, who.name as string),
      serviceId: what.id,
      service: entityRef(service, what.id, what.name as string),
      isDialAllowed: permissions.includes('Dial'),
      isBindAllowed: permissions.includes('Bind'),
      identityRouterCount: identityRouters.length,
      serviceRouterCount: serviceRouters.size,
      commonRouters: presented.map((r) => ({ ...entityRef(edgeRouter, r.id as string, r.name as string), isOnline: r.isOnline === true })),
    },
  };
}

export function accessRoutes(rt: Runtime): Route[] {
  return [
    { method: 'GET', path: '/current-identity/edge-routers', api: 'client', access: 'session', handler: (ctx) => ownEdgeRouters(rt, ctx) },
    { method: 'GET', path: '/identities/{id}/policy-advice/{serviceId}', api: 'management', access: 'admin', handler: (ctx) => policyAdvice(rt, ctx) },
  ];
}
