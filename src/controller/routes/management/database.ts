import { integrityCheckResults, startIntegrityCheck, takeSnapshot } from '../../model/database.js';
import type { Runtime } from '../../runtime.js';
import type { Route } from '../../server/types.js';
import type { Responses, Success } from '../../server/responses.js';
import type { JsonSchema } from '../../server/schemas.js';

/**
 * The database group of the management API (src/controller/model/database.ts): a check started answers 202 at once,
 * its results are read from `/database/data-integrity-results`, which says whether it is still running.
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
      handler: () => {
        startIntegrityCheck(rt, false);
        return { status: 202, data: {} };
      },
    },
    {
      method: 'POST',
      path: '/database/fix-data-integrity',
      api,
      access: 'admin',
      responds: checkStarted,
      handler: () => {
        startIntegrityCheck(rt, true);
        return { status: 202, data: {} };
      },
    },
    {
      method: 'GET',
      path: '/database/data-integrity-results',
      api,
      access: 'admin',
      responds: resultsAnswer,
      handler: () => {
        const data = integrityCheckResults(rt);
        const pagination = { limit: -1, offset: 0, totalCount: data.results.length };
        return { data, meta: { pagination, filterableFields: [] } };
      },
    },
    {
      method: 'POST',
      path: '/database/snapshot',
      api,
      access: 'admin',
      responds: snapshotAnswer,
      // OpenZiti answers an empty object; the path is added so the operator knows where the copy went.
      handler: async (ctx) => ({ data: { path: await takeSnapshot(rt, ctx.now) } }),
    },
  ];
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
