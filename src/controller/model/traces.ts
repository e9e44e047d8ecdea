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
