import type { Runtime } from '../../runtime.js';
import type { Route } from '../../server/types.js';
import type { Responses, Success } from '../../server/responses.js';

/**
 * The service update check: when what the caller sees through the client API last changed, as the write hooks of
 * model/service-updates.ts stamp it, and never before its API session began (as in OpenZiti).
 */
export function routes(rt: Runtime): Route[] {
  return [
    {
      method: 'GET',
      path: '/current-api-session/service-updates',
      api: 'client',
      access: 'session',
      responds: lastChangeAnswer,
      handler: async (ctx) => {
        // As OpenZiti: never before the API session began (a new session has not listed its services yet).
        const session = await rt.store
          .repo('api-session')
          .findOne({ id: ctx.principal!.apiSessionId }, { columns: [] });
        const stamp = await rt.serviceUpdates.lastChangeAt(ctx.principal!.identityId);
        const began = session ? new Date(session.createdAt as string) : stamp;
        return { data: { lastChangeAt: (began.getTime() > stamp.getTime() ? began : stamp).toISOString() } };
      },
    },
  ];
}

function lastChangeAnswer(r: Responses): Success {
  const description = 'when what this identity sees through the client API last changed';
  return r.data('listCurrentApiSessionServiceUpdatesEnvelope', description, {
    type: 'object',
    properties: { lastChangeAt: { type: 'string', format: 'date-time' } },
    required: ['lastChangeAt'],
  });
}
