import { resource, type ResourceDef } from '../../resources/index.js';
import type { Runtime } from '../runtime.js';
import type { Ctx, Route } from '../server/types.js';
import { listResource } from './crud.js';

const routerDef = resource('transit-router');
const terminatorDef = resource('terminator');

/**
 * OpenZiti's fabric API (`/fabric/v1`), the part its web console reads: routers and terminators, list and detail,
 * with the management API's filters and paging. The console's map starts from `/fabric/v1/routers` and adds what
 * `/edge-routers` says of the edge ones. The models are the fabric's (controller/specs/swagger.yml in openziti/ziti):
 * a router is `connected` rather than `isOnline`, a terminator names its `instanceId` and `hostId`.
 * Writes, links and circuits are not served: routers change through the edge API, and this controller has no data
 * plane, so there are no links or circuits to show.
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

function readOnly(rt: Runtime, path: string, def: ResourceDef, shape: (row: Record<string, unknown>) => Record<string, unknown>): Route[] {
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
      handler: async (ctx: Ctx) => ({ data: shape((await rt.present(def, [await rt.store.repoFor(def).get(ctx.params.id)]))[0]) }),
    },
  ];
}

export function fabricRoutes(rt: Runtime): Route[] {
  return [...readOnly(rt, '/routers', routerDef, fabricRouter), ...readOnly(rt, '/terminators', terminatorDef, fabricTerminator)];
}
