import { resource } from '../../../resources/index.js';
import { setTrace, type TraceSpec } from '../../model/traces.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import type { Responses, Success } from '../../server/responses.js';

const identity = resource('identity');

const TRACE_SPEC_SCHEMA = {
  type: 'object',
  properties: {
    enabled: { type: 'boolean' },
    duration: { type: 'string', maxLength: 64 },
    traceId: { type: 'string', maxLength: 256 },
    channels: { type: 'array', items: { type: 'string', maxLength: 64 }, maxItems: 16 },
  },
  additionalProperties: false,
};

export function routes(rt: Runtime): Route[] {
  return [
    {
      method: 'PUT',
      path: '/identities/{id}/trace',
      api: 'management',
      access: 'admin',
      responds: traceAnswer,
      handler: (ctx) => updateTracing(rt, ctx),
    },
  ];
}

async function updateTracing(rt: Runtime, ctx: Ctx) {
  const id = (await rt.store.repoFor(identity).get(ctx.params.id)).id;
  const spec = rt.validators.custom(TRACE_SPEC_SCHEMA, await ctx.json()) as TraceSpec;
  return { data: setTrace(rt, id, spec, ctx.now) };
}

function traceAnswer(r: Responses): Success {
  return r.data('traceDetailEnvelope', 'the trace now recorded for the identity', {
    type: 'object',
    properties: {
      enabled: { type: 'boolean' },
      traceId: { type: 'string' },
      until: { type: 'string', format: 'date-time' },
    },
    required: ['enabled'],
  });
}
