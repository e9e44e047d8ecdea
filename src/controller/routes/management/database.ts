import { ApiError } from '../../../protocol/errors.js';
import type { Runtime } from '../../runtime.js';
import type { Route } from '../../server/types.js';
import type { IntegrityIssue } from '../../store/integrity.js';
import type { Responses, Success } from '../../server/responses.js';
import type { JsonSchema } from '../../server/schemas.js';

/** OpenZiti keeps at most this many results of a check, and says so with `tooManyErrors`. */
const MAX_RESULTS = 1000;
/** OpenZiti refuses a snapshot within a minute of the last one (429 RATE_LIMITED). */
const SNAPSHOT_INTERVAL_MS = 60_000;

/** The last (or running) integrity check of one controller, as `GET /database/data-integrity-results` shows it. */
interface CheckState {
  running: boolean;
  fixingErrors: boolean;
  startTime: Date | null;
  endTime: Date | null;
  error: string | null;
  tooManyErrors: boolean;
  results: IntegrityIssue[];
  /** The run in progress, for tests and for close to wait on. */
  done?: Promise<void>;
}

interface DatabaseState {
  check: CheckState;
  lastSnapshot?: number;
}

const states = new WeakMap<Runtime, DatabaseState>();

function stateOf(rt: Runtime): DatabaseState {
  let state = states.get(rt);
  if (!state) {
    state = {
      check: {
        running: false,
        fixingErrors: false,
        startTime: null,
        endTime: null,
        error: null,
        tooManyErrors: false,
        results: [],
      },
    };
    states.set(rt, state);
  }
  return state;
}

/** OpenZiti's answer when a check is already running or a snapshot comes too soon. */
function rateLimited(message: string): ApiError {
  return new ApiError('RATE_LIMITED', { status: 429, message });
}

/**
 * The database group of the management API. A check (or a check that fixes) runs in the background, one at a time
 * (a second start while one runs is 429 RATE_LIMITED, as in OpenZiti); its results are read from
 * `/database/data-integrity-results`, which says whether it is still running. A snapshot copies the SQLite database
 * beside itself (at most one a minute); on PostgreSQL it is refused with a clear error (store/integrity.ts).
 */
export function routes(rt: Runtime): Route[] {
  const api = 'management';
  return [
    {
      method: 'POST',
      path: '/database/check-data-integrity',
      api,
      access: 'admin',
      responds: checkStarted,
      handler: () => startCheck(rt, false),
    },
    {
      method: 'POST',
      path: '/database/fix-data-integrity',
      api,
      access: 'admin',
      responds: checkStarted,
      handler: () => startCheck(rt, true),
    },
    {
      method: 'GET',
      path: '/database/data-integrity-results',
      api,
      access: 'admin',
      responds: resultsAnswer,
      handler: () => results(rt),
    },
    {
      method: 'POST',
      path: '/database/snapshot',
      api,
      access: 'admin',
      responds: snapshotAnswer,
      handler: (ctx) => snapshot(rt, ctx.now),
    },
  ];
}

function startCheck(rt: Runtime, fix: boolean) {
  const check = stateOf(rt).check;
  if (check.running)
    throw rateLimited(
      'a data integrity check is already running: read its progress at /database/data-integrity-results',
    );
  Object.assign(check, {
    running: true,
    fixingErrors: fix,
    startTime: rt.clock(),
    endTime: null,
    error: null,
    tooManyErrors: false,
    results: [],
  });
  const report = (issue: IntegrityIssue) => {
    if (check.results.length < MAX_RESULTS) check.results.push(issue);
    else check.tooManyErrors = true;
  };
  check.done = rt.store
    .integrity()
    .check(fix, report)
    .catch((err: unknown) => {
      check.error = err instanceof Error ? err.message : String(err);
      rt.log(`data integrity check failed: ${check.error}`);
    })
    .finally(() => {
      check.endTime = rt.clock();
      check.running = false;
    });
  return { status: 202, data: {} };
}

/** When the current (or last) check ends; resolved at once when none has been started. */
export async function checkSettled(rt: Runtime): Promise<void> {
  await stateOf(rt).check.done;
}

function results(rt: Runtime) {
  const check = stateOf(rt).check;
  return {
    data: {
      inProgress: check.running,
      fixingErrors: check.fixingErrors,
      tooManyErrors: check.tooManyErrors,
      // Null until a check has started (endTime until it ends), as OpenZiti sends them: there is no time to give.
      startTime: check.startTime?.toISOString() ?? null,
      endTime: check.endTime?.toISOString() ?? null,
      // OpenZiti sends null when the check did not fail; its Swagger says a string, which "" satisfies.
      error: check.error ?? '',
      results: check.results.map((r) => ({ ...r })),
    },
    meta: { pagination: { limit: -1, offset: 0, totalCount: check.results.length }, filterableFields: [] },
  };
}

async function snapshot(rt: Runtime, now: Date) {
  const state = stateOf(rt);
  if (state.lastSnapshot !== undefined && now.getTime() - state.lastSnapshot < SNAPSHOT_INTERVAL_MS) {
    throw rateLimited('a snapshot was taken less than a minute ago: try again later');
  }
  const path = await rt.store.integrity().snapshot(now);
  state.lastSnapshot = now.getTime();
  rt.log(`database snapshot written to ${path}`);
  // OpenZiti answers an empty object; the path is added so the operator knows where the copy went.
  return { data: { path } };
}

/** The answer to starting a check: accepted, the check goes on after it. */
function checkStarted(r: Responses): Success {
  return { ...r.empty('the check started; read its results at /database/data-integrity-results'), status: 202 };
}

function resultsAnswer(r: Responses): Success {
  const description = 'the progress and findings of the last check';
  return r.data('dataIntegrityCheckResultEnvelope', description, integrityResults(), 'listMeta');
}

/** `GET /database/data-integrity-results`: times are null until known (no check yet, or still running). */
function integrityResults(): JsonSchema {
  const time = { type: 'string', format: 'date-time', 'x-nullable': true };
  const finding = {
    type: 'object',
    properties: { description: { type: 'string' }, fixed: { type: 'boolean' } },
    required: ['description', 'fixed'],
  };
  return {
    type: 'object',
    properties: {
      inProgress: { type: 'boolean' },
      fixingErrors: { type: 'boolean' },
      tooManyErrors: { type: 'boolean' },
      startTime: time,
      endTime: time,
      error: { type: 'string', description: 'why the check failed; empty when it did not' },
      results: { type: 'array', items: finding },
    },
    required: ['inProgress', 'fixingErrors', 'tooManyErrors', 'startTime', 'endTime', 'error', 'results'],
  };
}

function snapshotAnswer(r: Responses): Success {
  return r.data('databaseSnapshotEnvelope', 'the snapshot was written (SQLite); its path', {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
  });
}
