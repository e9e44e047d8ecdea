import type { Runtime, Write } from '../runtime.js';
import type { Consequences } from './behaviour.js';
import type { Row } from '../store/repository.js';
import { updatesAny } from './write-changes.js';

/**
 * What moves the service update check (`GET /current-api-session/service-updates`, routes/client/): SDKs and tunnelers
 * poll it and list their services again only when `lastChangeAt` moved. It moves for an identity when something it sees
 * through the client API's services may have changed: a service policy selecting it (its roles, type or semantic;
 * created, deleted), a service it may reach (any field: the read model carries them all), a config of such a service,
 * one of its own service configs, its attributes, a posture check its policies require, or the verdict of one of those
 * checks after a posture response. Nothing else moves it: the check stays a map lookup.
 *
 * The stamps are kept in memory (src/controller/client-state.ts), or in the database by controllers sharing one
 * (cluster/service-update-stamps.ts), written by the hooks below inside the writes'
 * transactions: each write looks up only the identities it concerns, through the access index; a policy over `#all`
 * identities moves one stamp every identity shares. A write that fails after its hook ran leaves a stamp moved:
 * clients then list services once for nothing, which is harmless. After a restart every stamp is the start time.
 * An API session never sees a time before it began, as in OpenZiti.
 */

const POLICY_FIELDS = ['identityRoles', 'serviceRoles', 'postureCheckRoles', 'type', 'semantic'];

/** A create, or an update of one of these fields. */
const changed = (write: Write, fields: readonly string[]) => !write.existing || updatesAny(write, fields);

/** Moves the stamps of the identities these service policies select (all identities for a `#all` one). */
async function touchSelectedBy(rt: Runtime, policyIds: readonly string[], at: Date): Promise<void> {
  if (policyIds.length === 0) return;
  const index = rt.store.roleIndex('service-policy', 'identityRoles');
  if (await index.anySelectsAll(policyIds)) return rt.serviceUpdates.touchEveryone(at);
  await rt.serviceUpdates.touch(await index.selectedIds(policyIds), at);
}

/** Moves the stamps of the identities some service policy grants one of these services. */
async function touchReaching(rt: Runtime, serviceIds: readonly string[], at: Date): Promise<void> {
  const index = rt.store.roleIndex('service-policy', 'serviceRoles');
  const policies = new Set<string>();
  for (const id of serviceIds) for (const p of await index.policiesSelecting(id)) policies.add(p);
  await touchSelectedBy(rt, [...policies], at);
}

/** Moves the stamps of the identities whose policies require this posture check. */
async function touchRequiring(rt: Runtime, checkId: string, at: Date): Promise<void> {
  await touchSelectedBy(
    rt,
    await rt.store.roleIndex('service-policy', 'postureCheckRoles').policiesSelecting(checkId),
    at,
  );
}

const when = (write: Write) => new Date(write.now);

export const consequences: Consequences = {
  phase: 'service-updates',
  hooks: {
    'service-policy': {
      // Before: who the policy selected; after: who it selects now. Both lists may change.
      async beforeWrite(rt, write) {
        if (write.existing && changed(write, POLICY_FIELDS))
          await touchSelectedBy(rt, [write.existing.id], when(write));
      },
      async afterWrite(rt, write) {
        if (changed(write, POLICY_FIELDS)) await touchSelectedBy(rt, [write.id], when(write));
      },
      beforeDelete: (rt, row) => touchSelectedBy(rt, [row.id], rt.clock()),
    },
    service: {
      async beforeWrite(rt, write) {
        if (write.existing) await touchReaching(rt, [write.existing.id], when(write));
      },
      afterWrite: (rt, write) => touchReaching(rt, [write.id], when(write)),
      beforeDelete: (rt, row) => touchReaching(rt, [row.id], rt.clock()),
    },
    config: {
      async afterWrite(rt, write) {
        if (!write.existing) return;
        const at = when(write);
        await touchReaching(rt, await servicesUsing(rt, write.id), at);
        const overrides = await rt.store
          .repo('identity-service-config')
          .findAll({ configId: write.id }, { columns: ['identityId'] });
        await rt.serviceUpdates.touch(
          overrides.map((o) => o.identityId as string),
          at,
        );
      },
    },
    identity: {
      async afterWrite(rt, write) {
        if (write.existing && changed(write, ['roleAttributes']))
          await rt.serviceUpdates.touch([write.id], when(write));
      },
    },
    'posture-check': {
      async beforeWrite(rt, write) {
        if (write.existing) await touchRequiring(rt, write.existing.id, when(write));
      },
      afterWrite: (rt, write) => touchRequiring(rt, write.id, when(write)),
      beforeDelete: (rt, row) => touchRequiring(rt, row.id, rt.clock()),
    },
  },
};

/** Services whose `configs` hold the config (config writes are rare: a scan of the services' config lists). */
async function servicesUsing(rt: Runtime, configId: string): Promise<string[]> {
  const rows: Row[] = await rt.store.repo('service').findAll({}, { columns: ['configs'] });
  return rows.filter((r) => ((r.configs as string[] | null) ?? []).includes(configId)).map((r) => r.id);
}
