import { resource, type ResourceDef } from '../../../resources/index.js';
import { createRouterWithEnrollment, deleteRouter, guardEdgeRow } from '../../model/resources/transit-router.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import { withBody } from '../kit/body.js';
import { created, listResource, updateResource, validBody } from '../kit/crud.js';
import { standardRoute } from '../kit/describe.js';

const routerDef = resource('transit-router');

/** Creates a router of either kind (`def`) from the request, with its enrollment: 201 with its id. */
export async function createRouter(rt: Runtime, def: ResourceDef, ctx: Ctx, method: 'erott' | 'trott') {
  const body = await validBody(rt, def, 'create', ctx);
  return created(def, await createRouterWithEnrollment(rt, def, body, method, ctx.now));
}

async function deleteTransitRouter(rt: Runtime, ctx: Ctx) {
  await deleteRouter(rt, await rt.store.repoFor(routerDef).get(ctx.params.id));
  return { data: {} };
}

/**
 * OpenZiti's console (ZAC 4.5) writes transit routers with its edge router model, adding `roleAttributes`, `appData`
 * and `isTunnelerEnabled`, which OpenZiti's router models do not have and its parser drops. They are dropped here
 * too, and only they: any other unknown field is refused as usual.
 */
const EDGE_ONLY_FIELDS = ['roleAttributes', 'appData', 'isTunnelerEnabled'];

function withoutEdgeFields(ctx: Ctx): Ctx {
  return withBody(ctx, (body) => {
    for (const field of EDGE_ONLY_FIELDS) delete body[field];
    return body;
  });
}

/**
 * The standard group at /transit-routers, and the same at /routers: OpenZiti's management API serves both from its
 * router store (the spec lists the group twice), and ZAC 4.x reads both.
 */
export function routes(rt: Runtime): Route[] {
  const update = (verb: 'replace' | 'patch') => (ctx: Ctx) =>
    updateResource(rt, routerDef, withoutEdgeFields(ctx), verb, guardEdgeRow);
  const create = (ctx: Ctx) => createRouter(rt, routerDef, withoutEdgeFields(ctx), 'trott');
  const remove = (ctx: Ctx) => deleteTransitRouter(rt, ctx);
  const routes = ['/transit-routers', '/routers'].flatMap((base) => [
    standardRoute(routerDef, 'create', create, { base }),
    standardRoute(routerDef, 'replace', update('replace'), { base }),
    standardRoute(routerDef, 'patch', update('patch'), { base }),
    standardRoute(routerDef, 'delete', remove, { base }),
  ]);
  // /transit-routers list and get are the generic ones; /routers serves the same.
  const detail = async (ctx: Ctx) => ({
    data: (await rt.present(routerDef, [await rt.store.repoFor(routerDef).get(ctx.params.id)]))[0],
  });
  routes.push(
    standardRoute(routerDef, 'list', (ctx) => listResource(rt, routerDef, ctx), { base: '/routers' }),
    standardRoute(routerDef, 'get', detail, { base: '/routers' }),
  );
  return routes;
}
