import { notFound } from '../../protocol/errors.js';
import { resource } from '../../resources/index.js';
import type { Services } from '../services.js';
import type { Ctx, Route } from '../server/types.js';
import type { Row } from '../store/repository.js';
import { entityRef, toWire } from './present.js';

const apiSession = resource('api-session');
const identity = resource('identity');

export function currentRoutes(services: Services): Route[] {
  return [
    { method: 'GET', path: '/current-api-session', api: 'both', access: 'session', handler: (ctx) => ({ data: presentCurrentSession(services, ctx.principal!.apiSessionId, ctx.principal!.token) }) },
    { method: 'DELETE', path: '/current-api-session', api: 'both', access: 'session', handler: (ctx) => logout(services, ctx) },
    { method: 'GET', path: '/current-identity', api: 'both', access: 'session', handler: (ctx) => currentIdentity(services, ctx) },
  ];
}

function logout(services: Services, ctx: Ctx) {
  services.sessions.delete(ctx.principal!.apiSessionId);
  return { data: {} };
}

function currentIdentity(services: Services, ctx: Ctx) {
  const row = services.store.repoFor(identity).get(ctx.principal!.identityId);
  return { data: services.present(identity, [row])[0] };
}

/**
 * The API session read model. The token is shown only to its owner (at authentication and on
 * /current-api-session); the management list leaves it empty, because only its hash is stored.
 */
export function presentApiSessions(rows: Row[], services: Services): Record<string, unknown>[] {
  return rows.map((row) => {
    const wire = toWire(apiSession, row);
    return {
      ...wire,
      token: '',
      identity: entityRef(identity, row.identityId as string, row.refNames.identityId),
      authQueries: [],
      cachedLastActivityAt: row.lastActivityAt,
      cachedUpdatedAt: row.updatedAt,
      isCertExtendable: false,
      isCertExtendRequested: false,
      isCertKeyRollRequested: false,
      improperClientCertChain: false,
      expiresAt: services.sessions.expiresAt(row.lastActivityAt as string).toISOString(),
      expirationSeconds: Math.round(services.config.sessionTimeoutMs / 1000),
    };
  });
}

export function presentCurrentSession(services: Services, id: string, token: string): Record<string, unknown> {
  const row = services.store.repoFor(apiSession).find(id);
  if (!row) throw notFound('api-session', id);
  return { ...presentApiSessions([row], services)[0], token };
}
