import { withExtJwtQueries } from '../../model/auth/ext-jwt.js';
import { resource } from '../../../resources/index.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import { presentCurrentSession } from '../../model/resources/api-session.js';
import type { Responses, Success } from '../../server/responses.js';
import { answers } from '../kit/describe.js';

const apiSession = resource('api-session');
const identity = resource('identity');

export function routes(rt: Runtime): Route[] {
  return [
    {
      method: 'GET',
      path: '/current-api-session',
      api: 'both',
      access: 'session',
      partialSession: true,
      responds: sessionWithToken,
      handler: async (ctx) => {
        const session = await presentCurrentSession(rt, ctx.principal!.apiSessionId, ctx.principal!.token);
        return { data: await withExtJwtQueries(rt, ctx, session) };
      },
    },
    {
      method: 'DELETE',
      path: '/current-api-session',
      api: 'both',
      access: 'session',
      partialSession: true,
      responds: (r) => r.empty('the session ended'),
      handler: (ctx) => logout(rt, ctx),
    },
    {
      method: 'GET',
      path: '/current-identity',
      api: 'both',
      access: 'session',
      responds: answers.detail(identity),
      handler: (ctx) => currentIdentity(rt, ctx),
    },
  ];
}

async function logout(rt: Runtime, ctx: Ctx) {
  await rt.apiSessions.delete(ctx.principal!.apiSessionId);
  return { data: {} };
}

async function currentIdentity(rt: Runtime, ctx: Ctx) {
  return { dataJson: await rt.answerById(identity, ctx.principal!.identityId) };
}

/** The API session as its owner reads it, at login and on `/current-api-session`. */
export function sessionWithToken(r: Responses): Success {
  return { ...r.detail(apiSession), description: 'the API session, with its token' };
}
