import { resource } from '../../../resources/index.js';
import { postureDataOf } from '../../model/posture/data.js';
import type { Runtime } from '../../runtime.js';
import type { Route } from '../../server/types.js';
import type { Responses, Success } from '../../server/responses.js';

const identity = resource('identity');

/**
 * An identity's posture data (src/controller/model/posture/data.ts), and the latest service requests posture checks
 * refused.
 */
export function routes(rt: Runtime): Route[] {
  const exists = async (id: string) => (await rt.store.repoFor(identity).get(id)).id;
  return [
    {
      method: 'GET',
      path: '/identities/{id}/posture-data',
      api: 'management',
      access: 'admin',
      responds: postureDataAnswer,
      handler: async (ctx) => ({ data: await postureDataOf(rt, await exists(ctx.params.id), ctx.now) }),
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
