import { resource } from '../../../resources/index.js';
import { forClients } from '../../model/resources/controller.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import { listResource } from '../kit/crud.js';
import { standardRoute } from '../kit/describe.js';

const controller = resource('controller');

export function routes(rt: Runtime): Route[] {
  const management = (ctx: Ctx) => listResource(rt, controller, ctx);
  const detail = async (ctx: Ctx) => ({
    data: (await rt.present(controller, [await rt.store.repoFor(controller).get(ctx.params.id)]))[0],
  });
  const client = async (ctx: Ctx) => {
    const page = await management(ctx);
    return { ...page, data: page.data.map(forClients) };
  };
  return [
    standardRoute(controller, 'list', management),
    standardRoute(controller, 'get', detail),
    standardRoute(controller, 'list', client, { api: 'client', access: 'session' }),
  ];
}
