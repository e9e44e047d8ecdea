import { invalidField } from '../../../protocol/errors.js';
import { resource } from '../../../resources/index.js';
import type { Runtime, Write } from '../../runtime.js';
import type { Row, Scope } from '../../store/repository.js';
import { accessibleServices, type Permission, permissionsOf } from '../access.js';
import type { ResourceModel } from '../behaviour.js';
import { servicePostureQueries } from '../posture/access.js';
import { toWire } from '../present.js';

const service = resource('service');

/**
 * Where service permissions come from: which of the services one identity may dial or bind, decided by the
 * service policies. The access index provides it; without one the read model carries no permissions.
 */
export interface PermissionsProvider {
  permissions(
    rt: Runtime,
    identityId: string,
    serviceIds: readonly string[],
  ): Promise<ReadonlyMap<string, readonly Permission[]>>;
  /** The services an identity may dial or bind, as a list scope (the client API lists only those). */
  accessible(rt: Runtime, identityId: string): Promise<Scope>;
}

/** Config types a request asks for: their ids, or every type. */
export type ConfigTypeSelection = 'all' | ReadonlySet<string>;

/** For whom a service is read: the identity whose permissions and service-config overrides apply, and which configs. */
export interface ServiceView {
  identityId?: string;
  configTypes?: ConfigTypeSelection;
  /** The reader's API session (client API): `postureQueries` are evaluated for it. */
  apiSessionId?: string;
  now?: Date;
}

export type ServicePresenter = (rows: Row[], rt: Runtime, view?: ServiceView) => Promise<Record<string, unknown>[]>;

/**
 * OpenZiti's management API fills `postureQueries` with one passing placeholder per permission (its posture data is
 * only looked up when posture checks are switched off, so with the default settings this is what it serves). The
 * client API, read with an API session, computes them from the posture its client reported.
 */
function placeholderPostureQueries(permissions: readonly string[]) {
  return permissions.map((p) => ({
    policyId: `dummy ${p.toLowerCase()} policy: no posture checks defined`,
    policyType: p,
    isPassing: true,
    postureQueries: [],
  }));
}

/**
 * The service read model: the stored fields, then what depends on who reads it (ServiceView):
 * - `config`: the data of the service's configs whose type was asked for, keyed by type name, with the reading
 *   identity's own configs (service-config overrides) in place of the service's of the same type, as OpenZiti does;
 * - `permissions`: the reading identity's Dial/Bind from the provider, `["Invalid"]` when it has neither (as OpenZiti
 *   serves it); empty when there is no reader (relation sub-lists, which OpenZiti does not
 *   compute either) or no provider;
 * - `postureQueries`: on the client API, per granting policy, its checks evaluated against the reported posture
 *   (src/controller/model/posture/access.ts); on the management API one placeholder per permission (see above).
 */
export function servicePresenter(provider?: PermissionsProvider): ServicePresenter {
  return async (rows, rt, view = {}) => {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const configs = view.configTypes
      ? await configData(rt, rows, view.identityId, view.configTypes)
      : new Map<string, Record<string, unknown>>();
    const permissions = view.identityId && provider ? await provider.permissions(rt, view.identityId, ids) : undefined;
    const posture =
      view.identityId && view.apiSessionId
        ? await servicePostureQueries(rt, view.identityId, view.apiSessionId, ids, view.now ?? rt.clock())
        : undefined;
    return rows.map((row) => {
      const granted = permissions ? [...(permissions.get(row.id) ?? [])] : [];
      const served = permissions && granted.length === 0 ? ['Invalid'] : granted;
      const postureQueries = posture?.get(row.id) ?? placeholderPostureQueries(granted);
      const wire = toWire(service, row);
      wire.config = configs.get(row.id) ?? {};
      wire.permissions = served;
      wire.postureQueries = postureQueries;
      return wire;
    });
  };
}

/** `config` of each service: chosen configs' data by type name, the identity's overrides winning. */
async function configData(
  rt: Runtime,
  rows: Row[],
  identityId: string | undefined,
  selection: ConfigTypeSelection,
): Promise<Map<string, Record<string, unknown>>> {
  const wanted = (typeId: unknown) => selection === 'all' || selection.has(typeId as string);
  if (selection !== 'all' && selection.size === 0) return new Map();
  // service id -> config type id -> config id
  const chosen = new Map<string, Map<string, string>>();
  const configIds = [...new Set(rows.flatMap((r) => (r.configs as string[] | null) ?? []))];
  const configs = configIds.length
    ? await rt.store.repo('config').findAll({ id: configIds }, { columns: ['configTypeId', 'data'] })
    : [];
  const byId = new Map(configs.map((c) => [c.id, c]));
  for (const row of rows) {
    const mine = new Map<string, string>();
    for (const id of (row.configs as string[] | null) ?? []) {
      const config = byId.get(id);
      if (config && wanted(config.configTypeId)) mine.set(config.configTypeId as string, id);
    }
    chosen.set(row.id, mine);
  }
  if (identityId) {
    const overrides = await rt.store
      .repo('identity-service-config')
      .findAll(
        { identityId, serviceId: rows.map((r) => r.id) },
        { columns: ['serviceId', 'configTypeId', 'configId'] },
      );
    const missing = overrides.filter((o) => !byId.has(o.configId as string)).map((o) => o.configId as string);
    if (missing.length)
      for (const c of await rt.store.repo('config').findAll({ id: missing }, { columns: ['configTypeId', 'data'] }))
        byId.set(c.id, c);
    for (const o of overrides)
      if (wanted(o.configTypeId))
        chosen.get(o.serviceId as string)?.set(o.configTypeId as string, o.configId as string);
  }
  const typeIds = [...new Set([...chosen.values()].flatMap((m) => [...m.keys()]))];
  const types = typeIds.length
    ? await rt.store.repo('config-type').findAll({ id: typeIds }, { columns: ['name'] })
    : [];
  const typeName = new Map(types.map((t) => [t.id, t.name as string]));
  const out = new Map<string, Record<string, unknown>>();
  for (const [serviceId, byType] of chosen) {
    const config: Record<string, unknown> = {};
    for (const [typeId, configId] of byType) config[typeName.get(typeId) ?? typeId] = byId.get(configId)?.data ?? {};
    out.set(serviceId, config);
  }
  return out;
}

/**
 * Config type names or ids, comma-separated or repeated; `all` for every type; unknown ones are ignored (as OpenZiti).
 */
export async function resolveConfigTypes(rt: Runtime, values: readonly string[]): Promise<ConfigTypeSelection> {
  const wanted = values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  if (wanted.includes('all')) return 'all';
  if (wanted.length === 0) return new Set();
  const repo = rt.store.repo('config-type');
  const found = [
    ...(await repo.findAll({ id: wanted }, { columns: [] })),
    ...(await repo.findAll({ name: wanted }, { columns: [] })),
  ];
  return new Set(found.map((t) => t.id));
}

/**
 * A service's configs: each of a type that targets services, at most one per type (400 naming `configs`, with
 * OpenZiti's reasons). Whether each id exists was checked with the body.
 */
async function checkConfigs(rt: Runtime, configIds: readonly string[]): Promise<void> {
  if (configIds.length === 0) return;
  const configs = await rt.store.repo('config').findAll({ id: [...configIds] }, { columns: ['name', 'configTypeId'] });
  const types = await serviceConfigTypes(rt, configs, 'configs', () => configIds);
  const seen = new Map<string, Row>();
  for (const config of configs) {
    const type = types.get(config.configTypeId as string);
    const other = seen.get(config.configTypeId as string);
    if (other) {
      throw invalidField(
        'configs',
        `configs ${other.name} and ${config.name} are both of config type ` +
          `${type?.name}: a service has at most one config of each type`,
        configIds,
      );
    }
    seen.set(config.configTypeId as string, config);
  }
}

/** The types of these configs, by id, each checked to target services (400 naming `field`, valued by `value`). */
async function serviceConfigTypes(
  rt: Runtime,
  configs: Iterable<Row>,
  field: string,
  value: (config: Row) => unknown,
): Promise<Map<string, Row>> {
  const list = [...configs];
  const typeIds = [...new Set(list.map((c) => c.configTypeId as string))];
  const types = new Map(
    (await rt.store.repo('config-type').findAll({ id: typeIds }, { columns: ['name', 'target'] })).map((t) => [
      t.id,
      t,
    ]),
  );
  for (const config of list) {
    const type = types.get(config.configTypeId as string);
    if (type && type.target !== 'service')
      throw invalidField(
        field,
        `config ${config.name} has config type ${type.name}, which does not target services`,
        value(config),
      );
  }
  return types;
}

async function beforeServiceWrite(rt: Runtime, write: Write): Promise<Record<string, unknown>> {
  const values = { ...write.values };
  // Read-only after create: accepted in an update body (OpenZiti's models carry it), never applied.
  if (write.verb !== 'create') delete values.encryptionRequired;
  if (Array.isArray(values.configs)) await checkConfigs(rt, values.configs as string[]);
  return values;
}

/** An identity's own config for a service, in place of the service's config of the same type. */
export type ServiceConfigPair = { serviceId: string; configId: string };

/** The configs a body names, each checked to exist (400 naming `configId`). */
async function configsOf(rt: Runtime, pairs: readonly ServiceConfigPair[]): Promise<Map<string, Row>> {
  const ids = [...new Set(pairs.map((p) => p.configId))];
  const found = new Map(
    (await rt.store.repo('config').findAll({ id: ids }, { columns: ['name', 'configTypeId'] })).map((c) => [c.id, c]),
  );
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) throw invalidField('configId', `no config found with id '${missing}'`, missing);
  return found;
}

/**
 * POST /identities/{id}/service-configs: for each {serviceId, configId}, the identity uses that config for the
 * service in place of the service's config of the same type. One per service and type: a later one replaces it.
 */
export async function assignServiceConfigs(rt: Runtime, owner: Row, pairs: readonly ServiceConfigPair[], at: Date) {
  const configs = await configsOf(rt, pairs);
  const serviceIds = [...new Set(pairs.map((p) => p.serviceId))];
  const services = new Set(
    (await rt.store.repoFor(service).findAll({ id: serviceIds }, { columns: [] })).map((s) => s.id),
  );
  const unknown = serviceIds.find((id) => !services.has(id));
  if (unknown !== undefined) throw invalidField('serviceId', `no service found with id '${unknown}'`, unknown);
  await serviceConfigTypes(rt, configs.values(), 'configId', (config) => config.id);
  const now = at.toISOString();
  const overrides = 'identity-service-config';
  await rt.store.tx(async () => {
    for (const { serviceId, configId } of pairs) {
      const configTypeId = configs.get(configId)!.configTypeId as string;
      await rt.writes.deleteWhere(overrides, { identityId: owner.id, serviceId, configTypeId });
      await rt.writes.insert(overrides, { identityId: owner.id, serviceId, configId, configTypeId }, { now });
    }
  });
  await rt.serviceUpdates.touch([owner.id], at);
}

/**
 * DELETE /identities/{id}/service-configs: for each {serviceId, configId}, the identity's override of that config's
 * type on the service goes (OpenZiti removes by type too). An empty body removes nothing, as in OpenZiti.
 */
export async function removeServiceConfigs(rt: Runtime, owner: Row, pairs: readonly ServiceConfigPair[], at: Date) {
  const configs = await configsOf(rt, pairs);
  await rt.store.tx(async () => {
    for (const { serviceId, configId } of pairs) {
      await rt.writes.deleteWhere('identity-service-config', {
        identityId: owner.id,
        serviceId,
        configTypeId: configs.get(configId)!.configTypeId as string,
      });
    }
  });
  if (pairs.length > 0) await rt.serviceUpdates.touch([owner.id], at);
}

/** Permissions as the access index decides them. */
export const PERMISSIONS: PermissionsProvider = { permissions: permissionsOf, accessible: accessibleServices };

/** The read model with permissions from the access index, for a view given by the routes that read services. */
export const presentServices = servicePresenter(PERMISSIONS);

/**
 * Services: their configs checked on every write, `encryptionRequired` fixed at create, a read model that depends on
 * who reads it, and the identities' service-config overrides.
 */
export const model: ResourceModel = {
  resource: 'service',
  hooks: { beforeWrite: beforeServiceWrite },
  present: (rows, rt) => presentServices(rows, rt),
};
