import { resource } from '../../../resources/index.js';
import { reEnrollEdgeRouter } from '../../model/resources/edge-router.js';
import type { Runtime } from '../../runtime.js';
import type { Route } from '../../server/types.js';
import { standardRoute } from '../kit/describe.js';
import { createRouter } from './routers.js';

const edgeRouter = resource('edge-router');

export function routes(rt: Runtime): Route[] {
  const api = 'management';
  return [
    standardRoute(edgeRouter, 'create', (ctx) => createRouter(rt, edgeRouter, ctx, 'erott')),
    {
      method: 'POST',
      path: '/edge-routers/{id}/re-enroll',
      api,
      access: 'admin',
      handler: async (ctx) => {
        await reEnrollEdgeRouter(rt, await rt.store.repoFor(edgeRouter).get(ctx.params.id), ctx.now);
        return { data: {} };
      },
      operationId: 'reEnrollEdgeRouter',
      responds: (r) => r.empty(`done (${edgeRouter.label})`),
    },
  ];
}
