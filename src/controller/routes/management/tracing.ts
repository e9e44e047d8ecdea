import { randomUUID } from 'node:crypto';
import { invalidField } from '../../../protocol/errors.js';
import { resource } from '../../../resources/index.js';
import { type IdentityTrace, tracesOf } from '../../model/traces.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import type { Responses, Success } from '../../server/responses.js';

const identity = resource('identity');

/** The channels OpenZiti traces (its logcontext masks); `all`, or none given, means every one of them. */
const TRACE_CHANNELS = ['selectPath', 'establishPath'] as const;

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
  const spec = rt.validators.custom(TRACE_SPEC_SCHEMA, await ctx.json()) as {
    enabled?: boolean;
    duration?: string;
    traceId?: string;
    channels?: string[];
  };
  if (!spec.enabled) {
    tracesOf(rt).delete(id);
    rt.log(`tracing disabled for identity ${id}`);
    return { data: { enabled: false } };
  }
  const ms = parseGoDuration(spec.duration ?? '');
  if (ms === undefined)
    throw invalidField('duration', 'must be a duration such as 30s, 10m or 1h30m', spec.duration ?? '');
  if (ms <= 0) throw invalidField('duration', 'must be longer than zero', spec.duration);
  if (ms > MAX_TRACE_MS) throw invalidField('duration', 'must be at most 8760h (a year)', spec.duration);
  const requested = spec.channels ?? [];
  const unknown = requested.find((c) => c !== 'all' && !(TRACE_CHANNELS as readonly string[]).includes(c));
  if (unknown !== undefined)
    throw invalidField('channels', `unknown channel '${unknown}': one of all, ${TRACE_CHANNELS.join(', ')}`, requested);
  const channels = requested.length === 0 || requested.includes('all') ? [...TRACE_CHANNELS] : [...new Set(requested)];
  // An empty traceId means "make one up", as OpenZiti does.
  const trace: IdentityTrace = {
    traceId: spec.traceId || randomUUID(),
    channels,
    until: new Date(ctx.now.getTime() + ms),
  };
  tracesOf(rt).set(id, trace);
  rt.log(
    `tracing enabled for identity ${id} with traceId ${trace.traceId} ` +
      `until ${trace.until.toISOString()} (channels ${channels.join(', ')})`,
  );
  return { data: { enabled: true, traceId: trace.traceId, until: trace.until.toISOString() } };
}

const MAX_TRACE_MS = 8760 * 3_600_000;

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * A duration in Go's `time.ParseDuration` syntax (what OpenZiti's traceSpec.duration takes): a sequence of decimal
 * numbers, each with a unit (ns, us, µs, ms, s, m, h), optionally signed: `300ms`, `1.5h`, `2h45m`; `0` alone.
 * Milliseconds, or undefined when the text is not such a duration.
 */
export function parseGoDuration(text: string): number | undefined {
  const match = /^([-+]?)(.*)$/s.exec(text)!;
  const sign = match[1] === '-' ? -1 : 1;
  const body = match[2];
  if (body === '0') return 0;
  if (body === '') return undefined;
  const part = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  while (at < body.length) {
    part.lastIndex = at;
    const m = part.exec(body);
    if (!m) return undefined;
    total += Number(m[1]) * UNIT_MS[m[2]];
    at = part.lastIndex;
  }
  return sign * total;
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
