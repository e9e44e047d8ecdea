import { type PostureResponse, recordPostureResponses } from '../../model/posture/responses.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import type { Responses, Success } from '../../server/responses.js';

/** Posture responses of the caller's API session (src/controller/model/posture/responses.ts). */

const TEXT = { type: 'string', maxLength: 1024 };
const LIST = { type: 'array', maxItems: 256, items: TEXT };

/** One response: `id` (the posture query's id, which is its check's) and `typeId`, then the fields of that kind. */
const RESPONSE_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 256 },
    typeId: { type: 'string', enum: ['OS', 'DOMAIN', 'MAC', 'PROCESS', 'PROCESS_MULTI', 'ENDPOINT_STATE', 'MFA'] },
    type: TEXT,
    version: TEXT,
    build: TEXT,
    domain: TEXT,
    macAddresses: LIST,
    path: TEXT,
    isRunning: { type: 'boolean' },
    hash: TEXT,
    signerFingerprints: LIST,
    woken: { type: 'boolean' },
    unlocked: { type: 'boolean' },
  },
  required: ['id', 'typeId'],
};

const BULK_SCHEMA = { type: 'array', maxItems: 256, items: RESPONSE_SCHEMA };

async function respond(rt: Runtime, ctx: Ctx, responses: PostureResponse[], status: 200 | 201) {
  const services = await recordPostureResponses(rt, ctx.principal!, responses, { bulk: status === 200, at: ctx.now });
  return { status, data: { services } };
}

export function routes(rt: Runtime): Route[] {
  return [
    {
      method: 'POST',
      path: '/posture-response',
      api: 'client',
      access: 'session',
      responds: (r) => ({ ...shortenedAnswer(r), status: 201 }),
      handler: async (ctx) =>
        respond(rt, ctx, [rt.validators.custom(RESPONSE_SCHEMA, await ctx.json()) as PostureResponse], 201),
    },
    {
      method: 'POST',
      path: '/posture-response-bulk',
      api: 'client',
      access: 'session',
      responds: shortenedAnswer,
      handler: async (ctx) =>
        respond(rt, ctx, rt.validators.custom(BULK_SCHEMA, await ctx.json()) as unknown as PostureResponse[], 200),
    },
  ];
}

function shortenedAnswer(r: Responses): Success {
  const service = {
    type: 'object',
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      postureQueryType: { type: 'string' },
      timeout: { type: 'integer' },
      timeoutRemaining: { type: 'integer' },
    },
    required: ['id', 'name', 'postureQueryType', 'timeout', 'timeoutRemaining'],
  };
  return r.data('postureResponseEnvelope', 'the services whose posture timers the responses shortened', {
    type: 'object',
    properties: { services: { type: 'array', items: service } },
    required: ['services'],
  });
}
