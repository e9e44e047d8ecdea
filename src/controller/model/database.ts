// The database operations of one controller: an integrity check (or a check that fixes), one at a time in the
// background (a second start while one runs is 429 RATE_LIMITED, as in OpenZiti), and snapshots, at most one a
// minute (on PostgreSQL refused with a clear error: store/integrity.ts).
import { ApiError } from '../../protocol/errors.js';
import type { Runtime } from '../runtime.js';
import type { IntegrityIssue } from '../store/integrity.js';

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

/** Starts a check (`fix`: one that fixes what it finds) in the background; 429 while one runs. */
export function startIntegrityCheck(rt: Runtime, fix: boolean): void {
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
    .integrity(rt.writes)
    .check(fix, report)
    .catch((err: unknown) => {
      check.error = err instanceof Error ? err.message : String(err);
      rt.log(`data integrity check failed: ${check.error}`);
    })
    .finally(() => {
      check.endTime = rt.clock();
      check.running = false;
    });
}

/** When the current (or last) check ends; resolved at once when none has been started. */
export async function checkSettled(rt: Runtime): Promise<void> {
  await stateOf(rt).check.done;
}

/** The current (or last) check, as OpenZiti serves it. */
export function integrityCheckResults(rt: Runtime) {
  const check = stateOf(rt).check;
  return {
    inProgress: check.running,
    fixingErrors: check.fixingErrors,
    tooManyErrors: check.tooManyErrors,
    // Null until a check has started (endTime until it ends), as OpenZiti sends them: there is no time to give.
    startTime: check.startTime?.toISOString() ?? null,
    endTime: check.endTime?.toISOString() ?? null,
    // OpenZiti sends null when the check did not fail; its Swagger says a string, which "" satisfies.
    error: check.error ?? '',
    results: check.results.map((r) => ({ ...r })),
  };
}

/** Copies the database beside itself (at most one a minute); answers where the copy went. */
export async function takeSnapshot(rt: Runtime, now: Date): Promise<string> {
  const state = stateOf(rt);
  if (state.lastSnapshot !== undefined && now.getTime() - state.lastSnapshot < SNAPSHOT_INTERVAL_MS) {
    throw rateLimited('a snapshot was taken less than a minute ago: try again later');
  }
  const path = await rt.store.integrity(rt.writes).snapshot(now);
  state.lastSnapshot = now.getTime();
  rt.log(`database snapshot written to ${path}`);
  return path;
}
