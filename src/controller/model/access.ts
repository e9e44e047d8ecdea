import { resource } from '../../resources/index.js';
import type { Runtime } from '../runtime.js';
import type { Row, Scope } from '../store/repository.js';
import { entityRef } from './present.js';

const service = resource('service');
const edgeRouter = resource('edge-router');
const identity = resource('identity');

/** What a service policy grants (wire-protocol section 4). */
export type Permission = 'Dial' | 'Bind';

/** The service policies of each type that select an identity: what every access question starts from. */
export async function identityServicePolicies(
  rt: Runtime,
  identityId: string,
): Promise<{ dial: string[]; bind: string[] }> {
  const index = rt.store.roleIndex('service-policy', 'identityRoles');
  const [dial, bind] = await Promise.all([
    index.policiesSelecting(identityId, { type: 'Dial' }),
    index.policiesSelecting(identityId, { type: 'Bind' }),
  ]);
  return { dial, bind };
}

/**
 * `permissions` of each service for the identity: the subset of Bind and Dial its policies grant (wire-protocol section
 * 4).
 */
export async function permissionsOf(
  rt: Runtime,
  identityId: string,
  serviceIds: readonly string[],
): Promise<Map<string, Permission[]>> {
  const { dial, bind } = await identityServicePolicies(rt, identityId);
  const services = rt.store.roleIndex('service-policy', 'serviceRoles');
  const [dialable, bindable] = await Promise.all([
    services.selectedAmong(dial, serviceIds),
    services.selectedAmong(bind, serviceIds),
  ]);
  return new Map(
    serviceIds.map((id) => [
      id,
      [...(bindable.has(id) ? ['Bind' as const] : []), ...(dialable.has(id) ? ['Dial' as const] : [])],
    ]),
  );
}

/** What an identity may do with one service, and the service policies that grant each permission (sorted). */
export interface ServiceAccess {
  permissions: Permission[];
  granting: Record<Permission, string[]>;
}

/**
 * The identity's access to one service, none when the service does not exist: to a client, a service it may not
 * use is as unknown as one that does not exist (404 either way). The identity's policies and the service's are each
 * read once, for both permissions and the policies behind them (what a session create needs).
 */
export async function accessToService(rt: Runtime, identityId: string, serviceId: string): Promise<ServiceAccess> {
  const [{ dial, bind }, byService] = await Promise.all([
    identityServicePolicies(rt, identityId),
    rt.store.roleIndex('service-policy', 'serviceRoles').policiesSelecting(serviceId),
  ]);
  const selecting = new Set(byService);
  const granted = (policies: string[]) => policies.filter((id) => selecting.has(id)).sort();
  const granting = { Dial: granted(dial), Bind: granted(bind) };
  const permissions = (['Bind', 'Dial'] as const).filter((p) => granting[p].length > 0);
  const none = { permissions: [], granting: { Dial: [], Bind: [] } };
  const exists = permissions.length > 0 && (await rt.store.repo('service').exists({ id: serviceId }));
  return exists ? { permissions, granting } : none;
}

/** The services an identity may dial or bind, as a list scope. */
export async function accessibleServices(rt: Runtime, identityId: string): Promise<Scope> {
  const { dial, bind } = await identityServicePolicies(rt, identityId);
  return {
    selectedBy: {
      index: rt.store.roleIndex('service-policy', 'serviceRoles'),
      policyIds: [...new Set([...dial, ...bind])],
    },
  };
}

/**
 * The edge routers an identity may use (its edge router policies) and a service may be reached through (its service
 * edge router policies), and those in both: where a session for the pair can go (OpenZiti's ListForIdentityAndService).
 */
export async function edgeRoutersFor(
  rt: Runtime,
  identityId: string,
  serviceId: string,
): Promise<{ identity: string[]; service: Set<string>; shared: string[] }> {
  // The identity's side and the service's side are independent: read side by side (session create waits on this).
  const [identity, serviceRouters] = await Promise.all([
    rt.store
      .roleIndex('edge-router-policy', 'identityRoles')
      .policiesSelecting(identityId)
      .then((ids) => rt.store.roleIndex('edge-router-policy', 'edgeRouterRoles').selectedIds(ids)),
    rt.store
      .roleIndex('service-edge-router-policy', 'serviceRoles')
      .policiesSelecting(serviceId)
      .then((ids) => rt.store.roleIndex('service-edge-router-policy', 'edgeRouterRoles').selectedIds(ids)),
  ]);
  const service = new Set(serviceRouters);
  return { identity, service, shared: identity.filter((id) => service.has(id)) };
}

/**
 * The enrolled (`isVerified`) edge routers a non-admin identity may connect to: those its edge router policies
 * select (wire-protocol section 4; OpenZiti's listEdgeRouters). A router that has not enrolled cannot accept anyone.
 */
export async function connectableEdgeRouters(rt: Runtime, identityId: string): Promise<string[]> {
  const policyIds = await rt.store.roleIndex('edge-router-policy', 'identityRoles').policiesSelecting(identityId);
  const selected = await rt.store.roleIndex('edge-router-policy', 'edgeRouterRoles').selectedIds(policyIds);
  const verified = selected.length
    ? await rt.store.repo('edge-router').findAll({ id: selected, isVerified: true }, { columns: ['id'] })
    : [];
  return verified.map((r) => r.id);
}

/** What it takes for an identity to use a service, and what is missing: permissions and the routers they share. */
export async function policyAdviceFor(rt: Runtime, who: Row, what: Row) {
  const permissions = (await permissionsOf(rt, who.id, [what.id])).get(what.id)!;
  const { identity: identityRouters, service: serviceRouters, shared } = await edgeRoutersFor(rt, who.id, what.id);
  const routers: Row[] = shared.length ? await rt.store.repoFor(edgeRouter).findAll({ id: shared }) : [];
  const presented = await rt.present(edgeRouter, routers);
  return {
    identityId: who.id,
    identity: entityRef(identity, who.id, who.name as string),
    serviceId: what.id,
    service: entityRef(service, what.id, what.name as string),
    isDialAllowed: permissions.includes('Dial'),
    isBindAllowed: permissions.includes('Bind'),
    identityRouterCount: identityRouters.length,
    serviceRouterCount: serviceRouters.size,
    commonRouters: presented.map((r) => ({
      ...entityRef(edgeRouter, r.id as string, r.name as string),
      isOnline: r.isOnline === true,
    })),
  };
}
