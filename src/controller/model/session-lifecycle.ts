import { resource } from '../../resources/index.js';
import type { Runtime } from '../runtime.js';
import type { Consequences } from './behaviour.js';
import type { Row, Where } from '../store/repository.js';
import { permissionsOf, type Permission } from './access.js';
import { updatesAny } from './write-changes.js';

const session = resource('session');

/**
 * Ends the sessions whose (identity, service, type) their identity's policies no longer permit, in the transaction
 * of the write that changed them (a service policy, an identity's or a service's attributes). Sessions are few: one
 * permissions lookup per identity concerned.
 */
async function endUnpermittedSessions(rt: Runtime, where: Where): Promise<void> {
  const repo = rt.store.repoFor(session);
  const rows = await repo.findAll(where, { columns: ['identityId', 'serviceId', 'type'] });
  const byIdentity = new Map<string, Row[]>();
  for (const row of rows)
    byIdentity.set(row.identityId as string, [...(byIdentity.get(row.identityId as string) ?? []), row]);
  for (const [identityId, sessions] of byIdentity) {
    const permissions = await permissionsOf(rt, identityId, [...new Set(sessions.map((s) => s.serviceId as string))]);
    for (const s of sessions)
      if (!permissions.get(s.serviceId as string)?.includes(s.type as Permission))
        await rt.writes.delete(session.name, s);
  }
}

const attributesChanged = (write: { existing?: Row; values: Record<string, unknown> }) =>
  updatesAny(write, ['roleAttributes']);

/**
 * Where a write can take a permission away, and the sessions to look at: any service policy write or delete (the
 * sessions of its type, before and after), an identity's or a service's attributes changing (its sessions). A
 * deleted identity or service takes its sessions with it (foreign keys), a disabled identity its API sessions.
 */
export const consequences: Consequences = {
  phase: 'sessions',
  hooks: {
    'service-policy': {
      async afterWrite(rt, write) {
        const types = new Set(
          [write.existing?.type, write.values.type].filter((t): t is string => typeof t === 'string'),
        );
        if (write.verb !== 'create') await endUnpermittedSessions(rt, { type: [...types] });
      },
      afterDelete: (rt, row) => endUnpermittedSessions(rt, { type: row.type as string }),
    },
    identity: {
      async afterWrite(rt, write) {
        if (attributesChanged(write)) await endUnpermittedSessions(rt, { identityId: write.id });
      },
    },
    service: {
      async afterWrite(rt, write) {
        if (attributesChanged(write)) await endUnpermittedSessions(rt, { serviceId: write.id });
      },
    },
  },
};
