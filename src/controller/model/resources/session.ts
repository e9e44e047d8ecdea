import { ApiError, invalidField, notFound } from '../../../protocol/errors.js';
import { resource } from '../../../resources/index.js';
import { hashToken, newSessionId } from '../../auth/api-sessions.js';
import type { Runtime } from '../../runtime.js';
import type { Row } from '../../store/repository.js';
import { accessToService, edgeRoutersFor, type Permission } from '../access.js';
import type { Principal } from '../../server/types.js';
import type { ResourceModel } from '../behaviour.js';
import { policiesPosture } from '../posture/access.js';
import { entityRef, toWire } from '../present.js';
import { sessionToken } from '../session-token.js';

const session = resource('session');
const servicePolicy = resource('service-policy');
const edgeRouter = resource('edge-router');
const apiSession = resource('api-session');

/** Whose session it is: the identity and the API session that asks for it. */
type SessionOwner = Pick<Principal, 'identityId' | 'apiSessionId'>;

/**
 * Posture of the granting policies, as OpenZiti's EvaluatePostureForService: access passes when ANY granting policy
 * has all its posture checks passing (a policy without checks passes), evaluated against the posture the caller's
 * client reported (src/controller/posture). When none passes: 409 INVALID_POSTURE, its cause the failed checks by
 * policy id, in OpenZiti's shape, and the refusal is kept for `GET /identities/{id}/failed-service-requests`.
 * Returns the passing policies (the session's `servicePolicies`).
 */
async function passingPolicies(
  rt: Runtime,
  { identityId, apiSessionId }: SessionOwner,
  at: Date,
  serviceId: string,
  type: Permission,
  policyIds: string[],
): Promise<string[]> {
  const posture = await policiesPosture(rt, identityId, apiSessionId, policyIds, at);
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
    when: at.toISOString(),
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
 * Answers the session's id and token, which is served only to the client that asked.
 */
export async function openSession(
  rt: Runtime,
  owner: SessionOwner,
  { serviceId, type, tags }: { serviceId: string; type: Permission; tags?: unknown },
  at: Date,
): Promise<{ id: string; token: string }> {
  const { identityId, apiSessionId } = owner;
  const { permissions, granting } = await accessToService(rt, identityId, serviceId);
  if (permissions.length === 0) throw notFound('service', serviceId);
  if (!permissions.includes(type)) throw invalidField('serviceId', 'service not found', serviceId);
  const servicePolicies = await passingPolicies(rt, owner, at, serviceId, type, granting[type]);
  if ((await edgeRoutersFor(rt, identityId, serviceId)).shared.length === 0)
    throw new ApiError('NO_EDGE_ROUTERS_AVAILABLE');

  const repo = rt.store.repoFor(session);
  const now = at.toISOString();
  const made = await rt.store.tx(async (): Promise<{ id: string; token?: string }> => {
    const existing = (await repo.findAll({ apiSessionId, serviceId, type }, { columns: ['id'] }))[0];
    if (existing) return { id: existing.id };
    const id = newSessionId();
    const token = await sessionToken(rt, { id, serviceId, apiSessionId, identityId, type }, at);
    const values = {
      apiSessionId,
      identityId,
      serviceId,
      type,
      servicePolicies,
      tags: tags ?? {},
      tokenHash: hashToken(token),
    };
    await rt.writes.insert(session.name, values, { id, now });
    return { id, token };
  });
  const { id } = made;
  // A session asked for again gets a token with a later `iat` (the stored hash stays the first's): tokens are
  // checked by signature and `jti`.
  const token = made.token ?? (await sessionToken(rt, { id, serviceId, apiSessionId, identityId, type }, at));
  return { id, token };
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
    rows.map(async (row) => {
      const wire = toWire(session, row);
      wire.apiSession = entityRef(apiSession, row.apiSessionId as string, '');
      wire.servicePolicies = ((row.servicePolicies as string[] | null) ?? [])
        .filter((id) => policies.has(id))
        .map((id) => entityRef(servicePolicy, id, policies.get(id)));
      wire.token = '';
      wire.edgeRouters = await routersOf(row);
      return wire;
    }),
  );
}

export const model: ResourceModel = { resource: 'session', present: presentSessions };
