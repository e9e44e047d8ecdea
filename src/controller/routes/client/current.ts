import { notFound } from '../../../protocol/errors.js';
import { withExtJwtQueries } from '../../model/auth/ext-jwt.js';
import { resource } from '../../../resources/index.js';
import { authQueriesOf } from '../../model/auth/mfa.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import type { Row } from '../../store/repository.js';
import { entityRef, toWire } from '../../model/present.js';
import type { ResourceBehaviour } from '../../model/behaviour.js';
import { sessionCertFlags } from '../enrollment/cert-extend.js';
import type { Responses, Success } from '../../server/responses.js';
import { answers } from '../kit/describe.js';

const apiSession = resource('api-session');
const identity = resource('identity');

export function currentRoutes(rt: Runtime): Route[] {
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
  const row = await rt.store.repoFor(identity).get(ctx.principal!.identityId);
  return { data: (await rt.present(identity, [row]))[0] };
}

/**
 * The API session read model. The token is shown only to its owner (at authentication and on
 * /current-api-session); the management list leaves it empty, because only its hash is stored.
 */
export async function presentApiSessions(rows: Row[], rt: Runtime): Promise<Record<string, unknown>[]> {
  const [authQueries, certFlags] = await Promise.all([authQueriesOf(rt, rows), sessionCertFlags(rt, rows)]);
  return rows.map((row) => {
    const wire = toWire(apiSession, row);
    return {
      ...wire,
      token: '',
      identity: entityRef(identity, row.identityId as string, row.refNames.identityId),
      authQueries: authQueries.get(row.id) ?? [],
      cachedLastActivityAt: row.lastActivityAt,
      cachedUpdatedAt: row.updatedAt,
      ...certFlags.get(row.id),
      improperClientCertChain: false,
      expiresAt: rt.apiSessions.expiresAt(row.lastActivityAt as string).toISOString(),
      expirationSeconds: Math.round(rt.config.sessionTimeoutMs / 1000),
    };
  });
}

export async function presentCurrentSession(rt: Runtime, id: string, token: string): Promise<Record<string, unknown>> {
  const row = await rt.store.repoFor(apiSession).find(id);
  if (!row) throw notFound('api-session', id);
  return { ...(await presentApiSessions([row], rt))[0], token };
}

export const apiSessionBehaviour: ResourceBehaviour = { resource: 'api-session', present: presentApiSessions };

/** The API session as its owner reads it, at login and on `/current-api-session`. */
export function sessionWithToken(r: Responses): Success {
  return { ...r.detail(apiSession), description: 'the API session, with its token' };
}
