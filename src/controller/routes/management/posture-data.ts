import { resource } from '../../../resources/index.js';
import type { Runtime } from '../../runtime.js';
import type { Route } from '../../server/types.js';
import type { Reported } from '../../client-state.js';
import { postureOfSessionRow } from '../../model/posture/access.js';
import { promptMissed } from '../../model/posture/evaluate.js';
import type { Responses, Success } from '../../server/responses.js';

const identity = resource('identity');

/** Go's zero time, as OpenZiti serves a time that was never set. */
const NEVER = '0001-01-01T00:00:00.000Z';

/** A piece of posture data nobody reported: OpenZiti's zero values. */
const unreported = { postureCheckId: '', timedOut: false, lastUpdatedAt: NEVER };

/**
 * An identity's posture: the data its clients last reported through posture responses (OS, MAC addresses, domain,
 * processes, and per API session MFA and endpoint state), and the latest service requests posture checks refused.
 * Both volatile, as in OpenZiti (src/controller/client-state.ts): a piece never reported shows OpenZiti's zero values.
 */
export function routes(rt: Runtime): Route[] {
  const exists = async (id: string) => (await rt.store.repoFor(identity).get(id)).id;
  const at = (d: Date | undefined) => d?.toISOString() ?? NEVER;
  const reported = (r: Reported | undefined) =>
    r
      ? { postureCheckId: r.postureCheckId, timedOut: false, lastUpdatedAt: r.lastUpdatedAt.toISOString() }
      : unreported;
  return [
    {
      method: 'GET',
      path: '/identities/{id}/posture-data',
      api: 'management',
      access: 'admin',
      responds: postureDataAnswer,
      handler: async (ctx) => {
        const id = await exists(ctx.params.id);
        const data = await rt.posture.read(id);
        const sessions = await rt.store.repo('api-session').findAll({ identityId: id }, { columns: ['isMfaComplete'] });
        const apiSessionPostureData: Record<string, unknown> = {};
        for (const s of sessions) {
          const posture = postureOfSessionRow(data, s);
          const passedAt = posture?.mfaPassedAt;
          // Passed on wake (unlock): MFA passed, and no wake (unlock) since whose grace period ran out unanswered.
          const passedSince = (event: Date | undefined) => !!passedAt && !promptMissed(event, passedAt, ctx.now);
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
          data: {
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
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/identities/{id}/failed-service-requests',
      api: 'management',
      access: 'admin',
      responds: failedRequestsAnswer,
      handler: async (ctx) => ({ data: [...(await rt.posture.failuresOf(await exists(ctx.params.id)))] }),
    },
  ];
}

function failedRequestsAnswer(r: Responses): Success {
  const requests = { type: 'array', items: { type: 'object' } };
  return r.data('failedServiceRequestEnvelope', 'the latest service requests refused on posture', requests);
}

function postureDataAnswer(r: Responses): Success {
  const text = { type: 'string' };
  const at = { type: 'string', format: 'date-time' };
  const base = { postureCheckId: text, timedOut: { type: 'boolean' }, lastUpdatedAt: at };
  const piece = (own: Record<string, unknown>) => ({
    type: 'object',
    properties: { ...base, ...own },
    required: [...Object.keys(base), ...Object.keys(own)],
  });
  const description = 'the posture its clients last reported (zero values for what they never reported)';
  return r.data('postureDataEnvelope', description, {
    type: 'object',
    properties: {
      os: piece({ type: text, version: text, build: text }),
      mac: piece({ addresses: { type: 'array', items: text } }),
      domain: piece({ domain: text }),
      processes: { type: 'array', items: { type: 'object' } },
      apiSessionPostureData: { type: 'object' },
    },
    required: ['os', 'mac', 'domain', 'processes', 'apiSessionPostureData'],
  });
}
