import { ApiError } from '../../../protocol/errors.js';
import { resource } from '../../../resources/index.js';
import {
  assignServiceConfigs,
  PERMISSIONS,
  presentServices,
  removeServiceConfigs,
  resolveConfigTypes,
  type ServiceConfigPair,
  type ServiceView,
} from '../../model/resources/service.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import { parseJson } from '../../server/body.js';
import { deleteResource, listMeta, updateResource } from '../kit/crud.js';
import { listParams } from '../kit/query.js';
import { standardRoute } from '../kit/describe.js';

const service = resource('service');
const identity = resource('identity');

/**
 * Who reads and which configs: the caller, or the identity named by `asIdentity` (id or name, as OpenZiti's list
 * accepts); the config types of the `configTypes` parameter, else those the caller's API session asked for.
 */
async function viewOf(rt: Runtime, ctx: Ctx, asAllowed = true): Promise<ServiceView> {
  let identityId = ctx.principal?.identityId;
  const as = asAllowed ? ctx.query.get('asIdentity') : null;
  if (as) {
    const repo = rt.store.repoFor(identity);
    const found = (await repo.find(as)) ?? (await repo.findOne({ name: as }, { columns: [] }));
    if (!found)
      throw new ApiError('NOT_FOUND', {
        cause: { field: 'asIdentity', reason: `no identity found with id or name '${as}'`, value: as },
      });
    identityId = found.id;
  }
  let requested = ctx.query.getAll('configTypes');
  if (requested.length === 0 && ctx.principal) {
    const session = await rt.store
      .repo('api-session')
      .findOne({ id: ctx.principal.apiSessionId }, { columns: ['configTypes'] });
    requested = (session?.configTypes as string[] | null) ?? [];
  }
  return { identityId, configTypes: await resolveConfigTypes(rt, requested) };
}

const SERVICE_CONFIGS_SCHEMA = {
  type: 'array',
  maxItems: 1000,
  items: {
    type: 'object',
    properties: {
      serviceId: { type: 'string', minLength: 1, maxLength: 256 },
      configId: { type: 'string', minLength: 1, maxLength: 256 },
    },
    required: ['serviceId', 'configId'],
    additionalProperties: false,
  },
};

async function pairsOf(rt: Runtime, body: unknown): Promise<ServiceConfigPair[]> {
  return rt.validators.custom(SERVICE_CONFIGS_SCHEMA, body) as unknown as ServiceConfigPair[];
}

/**
 * The client API's services: only those the caller may dial or bind (admins get no more), each with its permissions
 * and the configs its API session asked for; one it may not use is as unknown to it as one that does not exist.
 */
function clientRoutes(rt: Runtime): Route[] {
  const repo = () => rt.store.repoFor(service);
  const viewOfCaller = async (ctx: Ctx): Promise<ServiceView> => ({
    ...(await viewOf(rt, ctx, false)),
    apiSessionId: ctx.principal!.apiSessionId,
    now: ctx.now,
  });
  const list = async (ctx: Ctx) => {
    const view = await viewOfCaller(ctx);
    const page = await repo().list({
      ...listParams(ctx.query),
      scope: await PERMISSIONS.accessible(rt, view.identityId!),
    });
    return { data: await presentServices(page.rows, rt, view), meta: listMeta(page, repo().filterableFields) };
  };
  const detail = async (ctx: Ctx) => {
    const view = await viewOfCaller(ctx);
    const row = await repo().find(ctx.params.id);
    const granted = row ? (await PERMISSIONS.permissions(rt, view.identityId!, [row.id])).get(row.id) : undefined;
    if (!row || !granted?.length)
      throw new ApiError('NOT_FOUND', {
        cause: { field: 'id', reason: `no service '${ctx.params.id}' this identity may use`, value: ctx.params.id },
      });
    return { data: (await presentServices([row], rt, view))[0] };
  };
  return [
    standardRoute(service, 'list', list, { api: 'client', access: 'session' }),
    standardRoute(service, 'get', detail, { api: 'client', access: 'session' }),
    // OpenZiti's client API also lets admins change and delete services, as its management API does.
    standardRoute(service, 'replace', (ctx) => updateResource(rt, service, ctx, 'replace'), { api: 'client' }),
    standardRoute(service, 'patch', (ctx) => updateResource(rt, service, ctx, 'patch'), { api: 'client' }),
    standardRoute(service, 'delete', (ctx) => deleteResource(rt, service, ctx), { api: 'client' }),
  ];
}

/**
 * Services read by whom (list and get take `configTypes` and, on the list, `asIdentity`), and the identities'
 * service-config overrides.
 */
export function routes(rt: Runtime): Route[] {
  const api = 'management';
  const access = 'admin';
  return [
    standardRoute(service, 'list', async (ctx) => {
      const repo = rt.store.repoFor(service);
      const page = await repo.list(listParams(ctx.query));
      return {
        data: await presentServices(page.rows, rt, await viewOf(rt, ctx)),
        meta: listMeta(page, repo.filterableFields),
      };
    }),
    standardRoute(service, 'get', async (ctx) => {
      const row = await rt.store.repoFor(service).get(ctx.params.id);
      return { data: (await presentServices([row], rt, await viewOf(rt, ctx)))[0] };
    }),
    {
      method: 'POST',
      path: '/identities/{id}/service-configs',
      api,
      access,
      responds: (r) => r.empty("the identity's service configs were set"),
      handler: async (ctx) => {
        const owner = await rt.store.repoFor(identity).get(ctx.params.id);
        await assignServiceConfigs(rt, owner, await pairsOf(rt, await ctx.json()), ctx.now);
        return { data: {} };
      },
    },
    ...clientRoutes(rt),
    {
      method: 'DELETE',
      path: '/identities/{id}/service-configs',
      api,
      access,
      responds: (r) => r.empty("the identity's service configs were removed"),
      handler: async (ctx) => {
        const owner = await rt.store.repoFor(identity).get(ctx.params.id);
        const text = await ctx.text();
        // An empty body removes nothing, as in OpenZiti.
        await removeServiceConfigs(rt, owner, text.trim() === '' ? [] : await pairsOf(rt, parseJson(text)), ctx.now);
        return { data: {} };
      },
    },
  ];
}
