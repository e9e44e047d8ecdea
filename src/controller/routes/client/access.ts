import { resource } from '../../../resources/index.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import { connectableEdgeRouters, policyAdviceFor } from '../../model/access.js';
import { listResource } from '../kit/crud.js';
import { ref, type Responses, type Success } from '../../server/responses.js';
import { answers } from '../kit/describe.js';

const service = resource('service');
const edgeRouter = resource('edge-router');
const identity = resource('identity');

/**
 * Edge routers the current identity may connect to, as OpenZiti's tunnelers ask for them: the enrolled
 * (`isVerified`) routers, since a router that has not enrolled cannot accept anyone; every one of them for admins,
 * for others those their edge router policies select (wire-protocol section 4; OpenZiti's listEdgeRouters).
 */
async function ownEdgeRouters(rt: Runtime, ctx: Ctx) {
  const { identityId, isAdmin } = ctx.principal!;
  if (isAdmin) return listResource(rt, edgeRouter, ctx, { where: { isVerified: true } });
  return listResource(rt, edgeRouter, ctx, { ids: await connectableEdgeRouters(rt, identityId) });
}

/** What it takes for an identity to use a service, and what is missing (policy advice, `ctl policy explain`). */
async function policyAdvice(rt: Runtime, ctx: Ctx) {
  const who = await rt.store.repoFor(identity).get(ctx.params.id);
  const what = await rt.store.repoFor(service).get(ctx.params.serviceId);
  return { data: await policyAdviceFor(rt, who, what) };
}

export function routes(rt: Runtime): Route[] {
  return [
    {
      method: 'GET',
      path: '/current-identity/edge-routers',
      api: 'client',
      access: 'session',
      responds: answers.list(edgeRouter),
      handler: (ctx) => ownEdgeRouters(rt, ctx),
    },
    {
      method: 'GET',
      path: '/identities/{id}/policy-advice/{serviceId}',
      api: 'management',
      access: 'admin',
      responds: policyAdviceAnswer,
      handler: (ctx) => policyAdvice(rt, ctx),
    },
  ];
}

function policyAdviceAnswer(r: Responses): Success {
  const entity = ref('entityRef');
  const count = { type: 'integer' };
  const online = { type: 'object', properties: { isOnline: { type: 'boolean' } }, required: ['isOnline'] };
  const description = 'whether the identity can dial and bind the service, and the edge routers they share';
  return r.data('getIdentityPolicyAdviceEnvelope', description, {
    type: 'object',
    properties: {
      identityId: { type: 'string' },
      identity: entity,
      serviceId: { type: 'string' },
      service: entity,
      isDialAllowed: { type: 'boolean' },
      isBindAllowed: { type: 'boolean' },
      identityRouterCount: count,
      serviceRouterCount: count,
      commonRouters: { type: 'array', items: { allOf: [entity, online] } },
    },
    required: [
      'identityId',
      'identity',
      'serviceId',
      'service',
      'isDialAllowed',
      'isBindAllowed',
      'identityRouterCount',
      'serviceRouterCount',
      'commonRouters',
    ],
  });
}
