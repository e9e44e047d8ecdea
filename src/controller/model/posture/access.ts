import { postureCheck } from '../../../resources/posture-check.js';
import { identityServicePolicies, type Permission } from '../access.js';
import { toWire } from '../present.js';
import { type ApiSessionPosture, apiSessionPostureIn, type PostureData } from '../../client-state.js';
import type { Runtime } from '../../runtime.js';
import type { Row } from '../../store/repository.js';
import { evaluateCheck, type CheckOutcome } from './evaluate.js';

/** A policy's posture for one API session: passing when every check it requires passes (none: passing). */
export interface PolicyPosture {
  policyId: string;
  isPassing: boolean;
  checks: Array<{ check: Row; outcome: CheckOutcome }>;
}

/**
 * The posture of an API session that belongs to it alone: MFA passed and endpoint state. MFA is passed at
 * authentication (an API session whose MFA is complete); when it was is recorded by `recordMfaPassed`, and for a
 * session completed without a record, the time its row last changed stands in (MFA completion writes the row).
 */
export async function sessionPosture(
  rt: Runtime,
  identityId: string,
  apiSessionId: string | undefined,
): Promise<ApiSessionPosture | undefined> {
  if (!apiSessionId) return undefined;
  return sessionPostureIn(rt, await rt.posture.read(identityId), apiSessionId);
}

/** As sessionPosture, from the identity's reported data already read. */
async function sessionPostureIn(
  rt: Runtime,
  data: PostureData | undefined,
  apiSessionId: string | undefined,
): Promise<ApiSessionPosture | undefined> {
  if (!apiSessionId) return undefined;
  const kept = data?.apiSessions.get(apiSessionId);
  if (kept?.mfaPassedAt) return kept;
  return postureOfSessionRow(
    data,
    await rt.store.repo('api-session').findOne({ id: apiSessionId }, { columns: ['isMfaComplete'] }),
  );
}

/** As sessionPosture, from the identity's data and an API session row already read (with `isMfaComplete`). */
export function postureOfSessionRow(
  data: PostureData | undefined,
  row: Row | undefined,
): ApiSessionPosture | undefined {
  const kept = row ? data?.apiSessions.get(row.id) : undefined;
  if (kept?.mfaPassedAt || row?.isMfaComplete !== true) return kept;
  return { ...kept, mfaPassedAt: new Date((row.updatedAt as string | undefined) ?? (row.createdAt as string)) };
}

/** Called where an API session passes MFA: MFA posture checks count their timeout from then. */
export async function recordMfaPassed(rt: Runtime, identityId: string, apiSessionId: string, at: Date): Promise<void> {
  await rt.posture.update(identityId, (data) => {
    apiSessionPostureIn(data, apiSessionId).mfaPassedAt = at;
  });
}

/** The posture checks each policy requires (its postureCheckRoles), the rows loaded once for all. */
export async function checksOfPolicies(rt: Runtime, policyIds: readonly string[]): Promise<Map<string, Row[]>> {
  const ids = await rt.store.roleIndex('service-policy', 'postureCheckRoles').selectedByEach(policyIds);
  const all = [...new Set([...ids.values()].flat())];
  const rows = new Map(
    all.length ? (await rt.store.repo('posture-check').findAll({ id: all })).map((r) => [r.id, r]) : [],
  );
  return new Map(
    [...ids].map(([policy, checks]) => [
      policy,
      checks
        .map((c) => rows.get(c))
        .filter((r): r is Row => !!r)
        .sort((a, b) => a.id.localeCompare(b.id)),
    ]),
  );
}

/** Each policy's posture for the identity's API session now. */
export async function policiesPosture(
  rt: Runtime,
  identityId: string,
  apiSessionId: string | undefined,
  policyIds: readonly string[],
  now: Date,
): Promise<Map<string, PolicyPosture>> {
  const checks = await checksOfPolicies(rt, policyIds);
  const data = await rt.posture.read(identityId);
  const session = await sessionPostureIn(rt, data, apiSessionId);
  const out = new Map<string, PolicyPosture>();
  for (const id of policyIds) {
    const evaluated = (checks.get(id) ?? []).map((check) => ({
      check,
      outcome: evaluateCheck(check, data, session, now),
    }));
    out.set(id, { policyId: id, isPassing: evaluated.every((c) => c.outcome.isPassing), checks: evaluated });
  }
  return out;
}

/** The service policies of a type that select both the identity and the service. */
export async function grantingPolicies(
  rt: Runtime,
  identityId: string,
  serviceId: string,
  type: Permission,
): Promise<string[]> {
  const [byIdentity, byService] = await Promise.all([
    rt.store.roleIndex('service-policy', 'identityRoles').policiesSelecting(identityId, { type }),
    rt.store.roleIndex('service-policy', 'serviceRoles').policiesSelecting(serviceId, { type }),
  ]);
  const selectingService = new Set(byService);
  return [...new Set(byIdentity)].filter((id) => selectingService.has(id)).sort();
}

/** A posture query as the client API serves it: the check's common fields, its kind and what the client must report. */
function postureQuery(check: Row, outcome: CheckOutcome): Record<string, unknown> {
  const base = toWire(postureCheck, check);
  const query: Record<string, unknown> = {
    id: base.id,
    createdAt: base.createdAt,
    updatedAt: base.updatedAt,
    tags: base.tags ?? {},
    _links: base._links,
    queryType: check.typeId,
    isPassing: outcome.isPassing,
    timeout: outcome.timeout,
    timeoutRemaining: outcome.timeoutRemaining,
  };
  if (check.typeId === 'PROCESS' && check.process) {
    const p = check.process as { osType: string; path: string };
    query.process = { osType: p.osType, path: p.path };
  }
  if (check.typeId === 'PROCESS_MULTI')
    query.processes = ((check.processes as Array<{ osType: string; path: string }> | null) ?? []).map((p) => ({
      osType: p.osType,
      path: p.path,
    }));
  if (check.typeId === 'MFA') {
    query.promptOnWake = check.promptOnWake === true;
    query.promptOnUnlock = check.promptOnUnlock === true;
    query.promptGracePeriodSeconds = 5 * 60;
  }
  return query;
}

/**
 * `postureQueries` of each service for the identity's API session: one entry per service policy granting it the
 * service (Dial and Bind), with whether the policy passes and the query of each check it requires (OpenZiti's
 * GetPolicyPostureChecks). A policy without checks is listed too, passing with no queries.
 */
export async function servicePostureQueries(
  rt: Runtime,
  identityId: string,
  apiSessionId: string | undefined,
  serviceIds: readonly string[],
  now: Date,
): Promise<Map<string, Array<Record<string, unknown>>>> {
  const { dial, bind } = await identityServicePolicies(rt, identityId);
  const typeOf = new Map<string, Permission>([
    ...dial.map((id) => [id, 'Dial'] as const),
    ...bind.map((id) => [id, 'Bind'] as const),
  ]);
  const selecting = await rt.store
    .roleIndex('service-policy', 'serviceRoles')
    .policiesSelectingAmong([...typeOf.keys()], serviceIds);
  const perService = new Map([...selecting].map(([s, policies]) => [s, [...policies].sort()] as const));
  const policyIds = [...new Set([...perService.values()].flat())];
  const posture = await policiesPosture(rt, identityId, apiSessionId, policyIds, now);
  return new Map(
    serviceIds.map((s) => [
      s,
      (perService.get(s) ?? []).map((policyId) => {
        const p = posture.get(policyId)!;
        return {
          policyId,
          policyType: typeOf.get(policyId),
          isPassing: p.isPassing,
          postureQueries: p.checks.map((c) => postureQuery(c.check, c.outcome)),
        };
      }),
    ]),
  );
}

/**
 * The passing state of every check that decides what the identity may use (those of the policies selecting it),
 * by check id: compared before and after a posture response, to know whether the identity's services changed.
 */
export async function checkStates(
  rt: Runtime,
  identityId: string,
  apiSessionId: string | undefined,
  now: Date,
): Promise<Map<string, boolean>> {
  const policies = await rt.store.roleIndex('service-policy', 'identityRoles').policiesSelecting(identityId);
  const posture = await policiesPosture(rt, identityId, apiSessionId, policies, now);
  const out = new Map<string, boolean>();
  for (const p of posture.values()) for (const c of p.checks) out.set(c.check.id, c.outcome.isPassing);
  return out;
}
