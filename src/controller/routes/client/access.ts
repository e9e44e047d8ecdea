import { resource } from '../../../resources/index.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import type { Row } from '../../store/repository.js';
import { edgeRoutersFor, permissionsOf } from '../../model/access.js';
import { listResource } from '../kit/crud.js';
import { entityRef } from '../../model/present.js';
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
  const policyIds = await rt.store.roleIndex('edge-router-policy', 'identityRoles').policiesSelecting(identityId);
  const selected = await rt.store.roleIndex('edge-router-policy', 'edgeRouterRoles').selectedIds(policyIds);
  const verified = selected.length
    ? await rt.store.repoFor(edgeRouter).findAll({ id: selected, isVerified: true }, { columns: ['id'] })
    : [];
  return listResource(rt, edgeRouter, ctx, { ids: verified.map((r) => r.id) });
}

/** What it takes for an identity to use a service, and what is missing (policy advice, `ctl policy explain`). */
async function policyAdvice(rt: Runtime, ctx: Ctx) {
  const who = await rt.store.repoFor(identity).get(ctx.params.id);
  const what = await rt.store.repoFor(service).get(ctx.params.serviceId);
  const permissions = (await permissionsOf(rt, who.id, [what.id])).get(what.id)!;
  const { identity: identityRouters, service: serviceRouters, shared } = await edgeRoutersFor(rt, who.id, what.id);
  const routers: Row[] = shared.length ? await rt.store.repoFor(edgeRouter).findAll({ id: shared }) : [];
  const presented = await rt.present(edgeRouter, routers);
  return {
    data: {
      identityId: who.id,
      identity: entityRef(identity, who.id, who.name as string),
      serviceId: what.id,
      service: entityRef(service, what.id, what.name as string),
      isDialAllowed: permissions.includes('Dial'),
      isBindAllowed: permissions.includes('Bind'),
      identityRouterCount: identityRouters.length,
      serviceRouterCount: serviceRouters.size,
      commonRouters: presented.map((r) => ({
        ...entityRef(edgeRouter, r.id as string, r.name as string),
        isOnline: r.isOnline === true,
      })),
    },
  };
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
