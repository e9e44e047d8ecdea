import { notFound } from '../../../protocol/errors.js';
import { resource } from '../../../resources/index.js';
import type { Runtime } from '../../runtime.js';
import type { Row } from '../../store/repository.js';
import { authQueriesOf } from '../auth/mfa.js';
import type { ResourceModel } from '../behaviour.js';
import { entityRef, toWire } from '../present.js';

const apiSession = resource('api-session');
const identity = resource('identity');

/**
 * The API session read model. The token is shown only to its owner (at authentication and on
 * /current-api-session); the management list leaves it empty, because only its hash is stored.
 */
async function presentApiSessions(rows: Row[], rt: Runtime): Promise<Record<string, unknown>[]> {
  const [authQueries, certFlags] = await Promise.all([authQueriesOf(rt, rows), sessionCertFlags(rt, rows)]);
  return rows.map((row) => {
    // Fields added to the read model's own object: spread into a new one, V8 took a slow path for each session.
    const wire = toWire(apiSession, row);
    wire.token = '';
    wire.identity = entityRef(identity, row.identityId as string, row.refNames.identityId);
    wire.authQueries = authQueries.get(row.id) ?? [];
    wire.cachedLastActivityAt = row.lastActivityAt;
    wire.cachedUpdatedAt = row.updatedAt;
    Object.assign(wire, certFlags.get(row.id));
    wire.improperClientCertChain = false;
    wire.expiresAt = rt.apiSessions.expiresAt(row.lastActivityAt as string).toISOString();
    wire.expirationSeconds = Math.round(rt.config.sessionTimeoutMs / 1000);
    return wire;
  });
}

export async function presentCurrentSession(rt: Runtime, id: string, token: string): Promise<Record<string, unknown>> {
  const row = await rt.store.repoFor(apiSession).find(id);
  if (!row) throw notFound('api-session', id);
  const [wire] = await presentApiSessions([row], rt);
  wire.token = token;
  return wire;
}

export const model: ResourceModel = { resource: 'api-session', present: presentApiSessions };

/**
 * What an API session says about its certificate: extendable when it was opened with a certificate this controller
 * issued, and whether an administrator asked for an early extension (and a new key). Clients read these from the
 * session they get at authentication and from /current-api-session; administrators from the API session list.
 * One read for all the sessions given.
 */
async function sessionCertFlags(
  rt: Runtime,
  sessions: Row[],
): Promise<
  Map<string, { isCertExtendable: boolean; isCertExtendRequested: boolean; isCertKeyRollRequested: boolean }>
> {
  const ids = [...new Set(sessions.map((s) => s.authenticatorId as string).filter(Boolean))];
  const authenticators =
    ids.length === 0 ? [] : await rt.store.repo('authenticator').findAll({ id: ids, method: 'cert' });
  const byId = new Map(authenticators.map((a) => [a.id, a]));
  return new Map(
    sessions.map((session) => {
      const auth = byId.get(session.authenticatorId as string);
      const cert = auth?.identityId === session.identityId ? auth : undefined;
      return [
        session.id,
        {
          isCertExtendable: cert?.isIssuedByNetwork === true,
          isCertExtendRequested: cert?.isExtendRequested === true,
          isCertKeyRollRequested: cert?.isKeyRollRequested === true,
        },
      ];
    }),
  );
}
