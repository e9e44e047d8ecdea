import { randomUUID } from 'node:crypto';
import { invalidField } from '../../protocol/errors.js';
import type { Runtime } from '../runtime.js';

/** A trace being recorded for an identity: what `PUT /identities/{id}/trace` accepted. */
export interface IdentityTrace {
  traceId: string;
  channels: string[];
  until: Date;
}

/**
 * Traces by identity, per controller, in memory as OpenZiti's trace manager keeps them (a trace is a debugging aid
 * that ends by itself; it does not survive a restart there either). With no data plane here nothing produces
 * trace events yet: the spec is validated, recorded, logged and answered exactly as OpenZiti answers it.
 */
const traces = new WeakMap<Runtime, Map<string, IdentityTrace>>();

export function tracesOf(rt: Runtime): Map<string, IdentityTrace> {
  let map = traces.get(rt);
  if (!map) traces.set(rt, (map = new Map()));
  return map;
}

/** The identity's trace, if one is recorded and has not run out. */
export function activeTrace(rt: Runtime, identityId: string, now: Date = rt.clock()): IdentityTrace | undefined {
  const trace = tracesOf(rt).get(identityId);
  if (trace && trace.until.getTime() <= now.getTime()) {
    tracesOf(rt).delete(identityId);
    return undefined;
  }
  return trace;
}

/** The channels OpenZiti traces (its logcontext masks); `all`, or none given, means every one of them. */
const TRACE_CHANNELS = ['selectPath', 'establishPath'] as const;

/** What `PUT /identities/{id}/trace` asks for (OpenZiti's traceSpec). */
export interface TraceSpec {
  enabled?: boolean;
  duration?: string;
  traceId?: string;
  channels?: string[];
}

/** Starts (or, not `enabled`, stops) the trace of an identity; answers it as OpenZiti does. */
export function setTrace(rt: Runtime, id: string, spec: TraceSpec, now: Date) {
  if (!spec.enabled) {
    tracesOf(rt).delete(id);
    rt.log(`tracing disabled for identity ${id}`);
    return { enabled: false };
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
    until: new Date(now.getTime() + ms),
  };
  tracesOf(rt).set(id, trace);
  rt.log(
    `tracing enabled for identity ${id} with traceId ${trace.traceId} ` +
      `until ${trace.until.toISOString()} (channels ${channels.join(', ')})`,
  );
  return { enabled: true, traceId: trace.traceId, until: trace.until.toISOString() };
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
