import { invalidField } from '../../../protocol/errors.js';
import { type ApiSessionPosture, apiSessionPostureIn, type PostureData, setLatestPosture } from '../../client-state.js';
import type { Runtime } from '../../runtime.js';
import type { Principal } from '../../server/types.js';
import { checkStates, checksOfPolicies, sessionPosture } from './access.js';
import { MFA_PROMPT_GRACE_SECONDS, NO_TIMEOUT } from './evaluate.js';
import { endFailingPostureSessions } from './sessions.js';

/**
 * Posture responses: what a client reports about its device (OS, domain, MAC addresses, processes, endpoint state),
 * kept per identity, endpoint state per API session, as OpenZiti keeps them (src/controller/client-state.ts). MFA is
 * not reported here: an API session passes it by authenticating with MFA.
 */

/** One response: `id` (the posture query's id, which is its check's) and `typeId`, then the fields of that kind. */
export type PostureResponse = Record<string, unknown> & { id: string; typeId: string };

/** Who reports: the identity, and the API session whose endpoint state a response may be. */
type Reporter = Pick<Principal, 'identityId' | 'apiSessionId'>;

/** The fields each kind needs (OpenZiti's postureResponse*Create models), named in the 400. */
const REQUIRED: Record<string, string[]> = {
  OS: ['type', 'version'],
  DOMAIN: ['domain'],
  MAC: ['macAddresses'],
  PROCESS: ['path'],
  PROCESS_MULTI: ['path'],
};

function checkResponse(r: PostureResponse, at: string): void {
  if (r.typeId === 'MFA') {
    throw invalidField(
      `${at}typeId`,
      'MFA posture is proven by authenticating with MFA (POST /authenticate/mfa), not by a posture response',
      r.typeId,
    );
  }
  for (const field of REQUIRED[r.typeId] ?? [])
    if (r[field] === undefined)
      throw invalidField(`${at}${field}`, `${field} is required in a ${r.typeId} posture response`, r);
}

/** Lower-case hex only: how OpenZiti compares MAC addresses, hashes and fingerprints. */
const hex = (s: string) => s.toLowerCase().replace(/[^0-9a-f]/g, '');

/** Keeps one response: in the identity's data, or (endpoint state) in its API session's, made on first use. */
function apply(data: PostureData, r: PostureResponse, session: () => ApiSessionPosture, now: Date): void {
  const base = { postureCheckId: r.id, lastUpdatedAt: now };
  switch (r.typeId) {
    case 'OS':
      data.os = {
        ...base,
        type: r.type as string,
        version: r.version as string,
        build: (r.build as string | undefined) ?? '',
      };
      break;
    case 'DOMAIN':
      data.domain = { ...base, domain: r.domain as string };
      break;
    case 'MAC':
      data.mac = { ...base, addresses: [...new Set((r.macAddresses as string[]).map(hex).filter(Boolean))] };
      break;
    case 'PROCESS':
    case 'PROCESS_MULTI': {
      const report = {
        ...base,
        path: r.path as string,
        isRunning: r.isRunning === true,
        binaryHash: hex((r.hash as string | undefined) ?? ''),
        signerFingerprints: ((r.signerFingerprints as string[] | undefined) ?? []).map(hex),
      };
      setLatestPosture(data.processes, r.id, report);
      setLatestPosture(data.processesByPath, report.path, report);
      break;
    }
    case 'ENDPOINT_STATE': {
      const s = session();
      if (r.woken === true) s.wokenAt = now;
      if (r.unlocked === true) s.unlockedAt = now;
      break;
    }
  }
}

/**
 * Services whose MFA timers a wake or unlock shortened (OpenZiti's answer to an endpoint state response): those the
 * identity reaches through a policy requiring an MFA check that prompts on that event, when more than the grace
 * period was left. Each with the check's timeout and the grace period as what remains. Unlike OpenZiti (which
 * lists every service behind such a check), only services this identity may use: others are none of its business.
 */
async function shortenedServices(
  rt: Runtime,
  { identityId, apiSessionId }: Reporter,
  now: Date,
  woken: boolean,
  unlocked: boolean,
) {
  const session = await sessionPosture(rt, identityId, apiSessionId);
  if (!session?.mfaPassedAt || !(woken || unlocked)) return [];
  const sinceMfa = Math.floor((now.getTime() - session.mfaPassedAt.getTime()) / 1000);
  const policies = await rt.store.roleIndex('service-policy', 'identityRoles').policiesSelecting(identityId);
  const checks = await checksOfPolicies(rt, policies);
  // The shortest timeout of the prompting checks of each policy concerned.
  const timeouts = new Map<string, number>();
  for (const policyId of policies) {
    const affected = (checks.get(policyId) ?? []).filter(
      (c) =>
        c.typeId === 'MFA' &&
        ((c.promptOnWake === true && woken) || (c.promptOnUnlock === true && unlocked)) &&
        (typeof c.timeoutSeconds !== 'number' ||
          c.timeoutSeconds <= 0 ||
          (c.timeoutSeconds as number) - sinceMfa > MFA_PROMPT_GRACE_SECONDS),
    );
    if (affected.length)
      timeouts.set(
        policyId,
        Math.min(
          ...affected.map((c) =>
            typeof c.timeoutSeconds === 'number' && c.timeoutSeconds > 0 ? c.timeoutSeconds : NO_TIMEOUT,
          ),
        ),
      );
  }
  if (timeouts.size === 0) return [];
  // The services of all those policies in one read (not three per policy), then their names in one more.
  const selected = await rt.store.roleIndex('service-policy', 'serviceRoles').selectedByEach([...timeouts.keys()]);
  const timeoutOf = new Map<string, number>();
  for (const [policyId, serviceIds] of selected)
    for (const id of serviceIds) timeoutOf.set(id, Math.min(timeoutOf.get(id) ?? Infinity, timeouts.get(policyId)!));
  const rows = timeoutOf.size
    ? await rt.store.repo('service').findAll({ id: [...timeoutOf.keys()] }, { columns: ['name'] })
    : [];
  const services = rows.map((row) => ({
    id: row.id,
    name: row.name as string,
    postureQueryType: 'MFA',
    timeout: timeoutOf.get(row.id)!,
    timeoutRemaining: MFA_PROMPT_GRACE_SECONDS,
  }));
  return services.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Applies responses of the reporting API session: checked whole first (a 400 applies nothing; `bulk`: the fields are
 * named by their place in the list), then kept; when a check that decides what the identity may use changed its
 * verdict, its service list changed (service update check). Answers the services whose MFA timers they shortened.
 */
export async function recordPostureResponses(
  rt: Runtime,
  reporter: Reporter,
  responses: PostureResponse[],
  { bulk, at }: { bulk: boolean; at: Date },
) {
  for (const [i, r] of responses.entries()) checkResponse(r, bulk ? `[${i}].` : '');
  const { identityId, apiSessionId } = reporter;
  const before = await checkStates(rt, identityId, apiSessionId, at);
  const data = await rt.posture.update(identityId, (reported) => {
    for (const r of responses) apply(reported, r, () => apiSessionPostureIn(reported, apiSessionId), at);
  });
  // Endpoint state and MFA of API sessions that ended (logout, timeout) go: memory stays bounded by live sessions.
  if (data.apiSessions.size > 1) {
    const live = new Set(
      (await rt.store.repo('api-session').findAll({ identityId }, { columns: [] })).map((r) => r.id),
    );
    if ([...data.apiSessions.keys()].some((id) => !live.has(id)))
      await rt.posture.update(identityId, (reported) => {
        for (const id of [...reported.apiSessions.keys()]) if (!live.has(id)) reported.apiSessions.delete(id);
      });
  }
  const after = await checkStates(rt, identityId, apiSessionId, at);
  if ([...after].some(([id, passing]) => before.get(id) !== passing)) {
    await rt.serviceUpdates.touch([identityId], at);
    // As OpenZiti: sessions whose posture fails now end (a passing one is never created by a response).
    await rt.store.tx(() => endFailingPostureSessions(rt, { identityId }, at));
  }
  const woken = responses.some((r) => r.typeId === 'ENDPOINT_STATE' && r.woken === true);
  const unlocked = responses.some((r) => r.typeId === 'ENDPOINT_STATE' && r.unlocked === true);
  return shortenedServices(rt, reporter, at, woken, unlocked);
}
