import { resource } from '../../../resources/index.js';
import {
  createIdentity,
  deleteIdentity,
  disableIdentity,
  enableIdentity,
  guardUpdate,
} from '../../model/resources/identity.js';
import type { Runtime } from '../../runtime.js';
import type { Route } from '../../server/types.js';
import { created, updateResource, validBody } from '../kit/crud.js';
import { standardRoute } from '../kit/describe.js';

const identity = resource('identity');

const DISABLE_SCHEMA = {
  type: 'object',
  // At most 100 years, so disabledUntil stays a sane date; 0 disables until enabled.
  properties: { durationMinutes: { type: 'integer', minimum: 0, maximum: 52_560_000 } },
  required: ['durationMinutes'],
  additionalProperties: false,
};

export function routes(rt: Runtime): Route[] {
  const api = 'management';
  return [
    standardRoute(identity, 'create', async (ctx) =>
      created(identity, await createIdentity(rt, await validBody(rt, identity, 'create', ctx), ctx.now)),
    ),
    standardRoute(identity, 'replace', (ctx) => updateResource(rt, identity, ctx, 'replace', guardUpdate)),
    standardRoute(identity, 'patch', (ctx) => updateResource(rt, identity, ctx, 'patch', guardUpdate)),
    standardRoute(identity, 'delete', async (ctx) => {
      await deleteIdentity(rt, await rt.store.repoFor(identity).get(ctx.params.id));
      return { data: {} };
    }),
    {
      method: 'POST',
      path: '/identities/{id}/disable',
      api,
      access: 'admin',
      responds: (r) => r.empty('the identity was disabled'),
      handler: async (ctx) => {
        const existing = await rt.store.repoFor(identity).get(ctx.params.id);
        const { durationMinutes } = rt.validators.custom(DISABLE_SCHEMA, await ctx.json()) as {
          durationMinutes: number;
        };
        await disableIdentity(rt, existing, { durationMinutes, at: ctx.now, by: ctx.principal?.identityId });
        return { data: {} };
      },
    },
    {
      method: 'POST',
      path: '/identities/{id}/enable',
      api,
      access: 'admin',
      responds: (r) => r.empty('the identity was enabled'),
      handler: async (ctx) => {
        await enableIdentity(rt, await rt.store.repoFor(identity).get(ctx.params.id), ctx.now);
        return { data: {} };
      },
    },
  ];
}
