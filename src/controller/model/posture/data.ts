import type { Reported } from '../../client-state.js';
import type { Runtime } from '../../runtime.js';
import { postureOfSessionRow } from './access.js';
import { promptMissed } from './evaluate.js';

/** Go's zero time, as OpenZiti serves a time that was never set. */
const NEVER = '0001-01-01T00:00:00.000Z';

/** A piece of posture data nobody reported: OpenZiti's zero values. */
const unreported = { postureCheckId: '', timedOut: false, lastUpdatedAt: NEVER };

/**
 * An identity's posture data as served: what its clients last reported through posture responses (OS, MAC addresses,
 * domain, processes, and per API session MFA and endpoint state). Volatile, as in OpenZiti
 * (src/controller/client-state.ts): a piece never reported shows OpenZiti's zero values.
 */
export async function postureDataOf(rt: Runtime, id: string, now: Date) {
  const at = (d: Date | undefined) => d?.toISOString() ?? NEVER;
  const reported = (r: Reported | undefined) =>
    r
      ? { postureCheckId: r.postureCheckId, timedOut: false, lastUpdatedAt: r.lastUpdatedAt.toISOString() }
      : unreported;
  const data = await rt.posture.read(id);
  const sessions = await rt.store.repo('api-session').findAll({ identityId: id }, { columns: ['isMfaComplete'] });
  const apiSessionPostureData: Record<string, unknown> = {};
  for (const s of sessions) {
    const posture = postureOfSessionRow(data, s);
    const passedAt = posture?.mfaPassedAt;
    // Passed on wake (unlock): MFA passed, and no wake (unlock) since whose grace period ran out unanswered.
    const passedSince = (event: Date | undefined) => !!passedAt && !promptMissed(event, passedAt, now);
    apiSessionPostureData[s.id] = {
      mfa: {
        apiSessionId: s.id,
        passedMfa: !!passedAt,
        passedAt: at(passedAt),
        passedOnWake: passedSince(posture?.wokenAt),
        passedOnUnlock: passedSince(posture?.unlockedAt),
      },
      ...(posture?.wokenAt || posture?.unlockedAt
        ? { endpointState: { wokenAt: at(posture.wokenAt), unlockedAt: at(posture.unlockedAt) } }
        : {}),
    };
  }
  return {
    os: {
      ...reported(data?.os),
      type: data?.os?.type ?? '',
      version: data?.os?.version ?? '',
      build: data?.os?.build ?? '',
    },
    mac: { ...reported(data?.mac), addresses: data?.mac?.addresses ?? [] },
    domain: { ...reported(data?.domain), domain: data?.domain?.domain ?? '' },
    processes: [...(data?.processes.values() ?? [])].map((p) => ({
      ...reported(p),
      path: p.path,
      isRunning: p.isRunning,
      binaryHash: p.binaryHash,
      signerFingerprints: p.signerFingerprints,
    })),
    apiSessionPostureData,
  };
}
