import { resource } from '../../../resources/index.js';
import type { Runtime } from '../../runtime.js';
import type { Consequences } from '../behaviour.js';
import type { Row, Where } from '../../store/repository.js';
import { updatesAny } from '../write-changes.js';
import type { Permission } from '../access.js';
import { grantingPolicies, policiesPosture } from './access.js';

const session = resource('session');

/**
 * Ends the service sessions whose posture no longer passes, as OpenZiti's posture cache does: a session stays while
 * one service policy granting its (identity, service, type) has all its checks passing for the session's API
 * session. Each identity whose sessions end has its service list changed (service update check). Returns how many
 * ended.
 */
export async function endFailingPostureSessions(rt: Runtime, where: Where, now: Date): Promise<number> {
  const repo = rt.store.repoFor(session);
  const rows = await repo.findAll(where, { columns: ['identityId', 'apiSessionId', 'serviceId', 'type'] });
  const verdicts = new Map<string, Promise<boolean>>();
  const passes = (row: Row) => {
    const key = [row.identityId, row.apiSessionId, row.serviceId, row.type].join('\n');
    if (!verdicts.has(key)) {
      verdicts.set(
        key,
        (async () => {
          const identityId = row.identityId as string;
          const apiSessionId = row.apiSessionId as string;
          const policies = await grantingPolicies(rt, identityId, row.serviceId as string, row.type as Permission);
          // No granting policy at all is the permission hooks' business (they end such sessions).
          if (policies.length === 0) return true;
          const posture = await policiesPosture(rt, identityId, apiSessionId, policies, now);
          return [...posture.values()].some((p) => p.isPassing);
        })(),
      );
    }
    return verdicts.get(key)!;
  };
  const ended = new Set<string>();
  let count = 0;
  for (const row of rows) {
    if (await passes(row)) continue;
    await rt.writes.delete(session.name, row);
    ended.add(row.identityId as string);
    count++;
  }
  if (ended.size) await rt.serviceUpdates.touch(ended, now);
  return count;
}

/**
 * Posture that runs out with time (MFA timeouts, the grace period after a wake or unlock) ends sessions without any
 * write: this sweep, run periodically, looks at the sessions of identities whose policies require such a check.
 * Nothing to do (no such check): one query.
 */
export async function enforcePostureTimeouts(rt: Runtime, now: Date): Promise<number> {
  const checks = await rt.store
    .repo('posture-check')
    .findAll({ typeId: 'MFA' }, { columns: ['timeoutSeconds', 'promptOnWake', 'promptOnUnlock'] });
  const timed = checks.filter(
    (c) =>
      (typeof c.timeoutSeconds === 'number' && c.timeoutSeconds > 0) ||
      c.promptOnWake === true ||
      c.promptOnUnlock === true,
  );
  if (timed.length === 0) return 0;
  const checkIndex = rt.store.roleIndex('service-policy', 'postureCheckRoles');
  const policies = new Set<string>();
  for (const c of timed) for (const p of await checkIndex.policiesSelecting(c.id)) policies.add(p);
  const where = await sessionsOfIdentitiesSelectedBy(rt, [...policies]);
  return where ? rt.store.tx(() => endFailingPostureSessions(rt, where, now)) : 0;
}

/** The sessions of the identities these service policies select (all for a `#all` one); none: undefined. */
async function sessionsOfIdentitiesSelectedBy(rt: Runtime, policyIds: readonly string[]): Promise<Where | undefined> {
  if (policyIds.length === 0) return undefined;
  const identities = rt.store.roleIndex('service-policy', 'identityRoles');
  if (await identities.anySelectsAll(policyIds)) return {};
  const identityId = await identities.selectedIds(policyIds);
  return identityId.length ? { identityId } : undefined;
}

/**
 * Writes that change what posture requires end the sessions that no longer pass, in the write's transaction: a
 * posture check changed (the sessions of the identities whose policies require it), a service policy's posture
 * checks changed (the sessions of its type).
 */
export const consequences: Consequences = {
  phase: 'posture-sessions',
  hooks: {
    'posture-check': {
      async afterWrite(rt, write) {
        if (!write.existing) return;
        const policies = await rt.store.roleIndex('service-policy', 'postureCheckRoles').policiesSelecting(write.id);
        const where = await sessionsOfIdentitiesSelectedBy(rt, policies);
        if (where) await endFailingPostureSessions(rt, where, new Date(write.now));
      },
    },
    'service-policy': {
      async afterWrite(rt, write) {
        if (!updatesAny(write, ['postureCheckRoles'])) return;
        await endFailingPostureSessions(
          rt,
          { type: (write.values.type ?? write.existing!.type) as string },
          new Date(write.now),
        );
      },
    },
  },
};
