import { resource, type ResourceDef } from '../../../resources/index.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import type { FilterSchema, SymbolType } from '../../store/filter-sql.js';
import { quote } from '../../store/fragment.js';
import { emptyPage } from '../../store/repository.js';
import { listResource } from '../kit/crud.js';
import { listParams } from '../kit/query.js';

const routerDef = resource('transit-router');
const terminatorDef = resource('terminator');

/**
 * OpenZiti's fabric API (`/fabric/v1`), the part its web console reads: routers and terminators, list and detail,
 * with the management API's filters and paging. The console's map starts from `/fabric/v1/routers` and adds what
 * `/edge-routers` says of the edge ones. The models are the fabric's (controller/specs/swagger.yml in openziti/ziti):
 * a router is `connected` rather than `isOnline`, a terminator names its `instanceId` and `hostId`.
 * Writes are not served: routers change through the edge API. Links and circuits are lists that only a data plane
 * fills, and this controller has none: they are served empty, with the fabric's filters checked and its paging.
 */
function fabricRouter(r: Record<string, unknown>): Record<string, unknown> {
  return {
    id: r.id,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    tags: r.tags,
    _links: { self: { href: `./routers/${r.id as string}` } },
    name: r.name,
    fingerprint: r.fingerprint,
    // Connected means holding a control channel to this controller; none can (docs/controller.md, "Online").
    connected: false,
    cost: r.cost,
    noTraversal: r.noTraversal,
    disabled: r.disabled,
    ctrlChanListeners: r.ctrlChanListeners,
    configs: r.configs,
    listenerAddresses: [],
  };
}

function fabricTerminator(t: Record<string, unknown>): Record<string, unknown> {
  const ref = (entityRef: unknown, plural: string) => {
    const e = entityRef as { id: string; name: string };
    return { entity: plural, id: e.id, name: e.name, _links: { self: { href: `./${plural}/${e.id}` } } };
  };
  return {
    id: t.id,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    tags: t.tags,
    _links: { self: { href: `./terminators/${t.id as string}` } },
    serviceId: t.serviceId,
    service: ref(t.service, 'services'),
    routerId: t.routerId,
    router: ref(t.router, 'routers'),
    binding: t.binding,
    address: t.address,
    instanceId: t.identity,
    cost: t.cost,
    precedence: t.precedence,
    dynamicCost: t.dynamicCost,
    // The host that made the terminator: only routers and SDKs make them through a data plane; none here.
    hostId: '',
  };
}

function readOnly(
  rt: Runtime,
  path: string,
  def: ResourceDef,
  shape: (row: Record<string, unknown>) => Record<string, unknown>,
): Route[] {
  const api = 'fabric';
  const access = 'admin';
  return [
    {
      method: 'GET',
      path,
      api,
      access,
      handler: async (ctx: Ctx) => {
        const page = await listResource(rt, def, ctx);
        return { ...page, data: page.data.map(shape) };
      },
    },
    {
      method: 'GET',
      path: `${path}/{id}`,
      api,
      access,
      handler: async (ctx: Ctx) => ({
        data: shape((await rt.present(def, [await rt.store.repoFor(def).get(ctx.params.id)]))[0]),
      }),
    },
  ];
}

/** ZitiQL symbols over entities that are never stored here: checked by the compiler, never run. */
function unstoredSchema(symbols: Record<string, SymbolType>): FilterSchema {
  return {
    idSql: quote('id'),
    symbols: Object.fromEntries(
      Object.entries(symbols).map(([name, type]) => [name, { kind: 'scalar' as const, type, sql: quote(name) }]),
    ),
  };
}

/** The symbols OpenZiti's fabric gives its in-memory link and circuit lists (its link and circuit managers). */
const LINK_SYMBOLS = unstoredSchema({
  id: 'string',
  protocol: 'string',
  dialAddress: 'string',
  sourceRouter: 'string',
  destRouter: 'string',
  cost: 'number',
  staticCost: 'number',
  destLatency: 'number',
  sourceLatency: 'number',
  state: 'string',
  iteration: 'number',
});
const CIRCUIT_SYMBOLS = unstoredSchema({
  id: 'string',
  clientId: 'string',
  service: 'string',
  terminator: 'string',
  createdAt: 'datetime',
  updatedAt: 'datetime',
});

/**
 * A list only a data plane fills: always empty here. OpenZiti's in-memory lists report their paging and no
 * `filterableFields`; an invalid filter is 400 INVALID_FILTER as anywhere.
 */
function unstoredList(path: string, schema: FilterSchema): Route {
  return {
    method: 'GET',
    path,
    api: 'fabric',
    access: 'admin',
    handler: (ctx: Ctx) => {
      const { totalCount, limit, offset } = emptyPage(schema, listParams(ctx.query));
      return { data: [], meta: { pagination: { limit, offset, totalCount } } };
    },
  };
}

export function routes(rt: Runtime): Route[] {
  return [
    ...readOnly(rt, '/routers', routerDef, fabricRouter),
    ...readOnly(rt, '/terminators', terminatorDef, fabricTerminator),
    unstoredList('/links', LINK_SYMBOLS),
    unstoredList('/circuits', CIRCUIT_SYMBOLS),
  ];
}
