import { invalidField } from '../../../protocol/errors.js';
import { resource } from '../../../resources/index.js';
import type { ResourceBehaviour } from '../../model/behaviour.js';
import type { Runtime, Write } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import type { Row } from '../../store/repository.js';
import { withBody } from '../kit/body.js';
import { createResource, updateResource } from '../kit/crud.js';
import { entityRef, toWire } from '../../model/present.js';
import { answers } from '../kit/describe.js';

const terminator = resource('terminator');
const service = resource('service');
const router = resource('transit-router');

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The identity secret is bytes, sent as base64 (Swagger `format: byte`). */
async function beforeWrite(_rt: Runtime, write: Write): Promise<void> {
  const secret = write.values.identitySecret;
  if (typeof secret === 'string' && !BASE64.test(secret))
    throw invalidField('identitySecret', 'must be base64 (standard alphabet, padded)', secret);
}

/** Entity references to each terminator's service and router, their names read once per page. */
async function presentTerminators(rows: Row[], rt: Runtime): Promise<Record<string, unknown>[]> {
  if (rows.length === 0) return [];
  const names = async (def: typeof service, ids: string[]) =>
    new Map(
      (await rt.store.repoFor(def).findAll({ id: [...new Set(ids)] }, { columns: ['name'] })).map((r) => [
        r.id,
        r.name as string,
      ]),
    );
  const serviceNames = await names(
    service,
    rows.map((r) => r.service as string),
  );
  const routerNames = await names(
    router,
    rows.map((r) => r.router as string),
  );
  return rows.map((row) => {
    const serviceId = row.service as string;
    const routerId = row.router as string;
    return {
      ...toWire(terminator, row),
      service: entityRef(service, serviceId, serviceNames.get(serviceId)),
      serviceId,
      router: entityRef(router, routerId, routerNames.get(routerId)),
      routerId,
      // No circuits pass through this controller, so nothing raises the cost above the static one.
      dynamicCost: row.cost,
    };
  });
}

/**
 * OpenZiti reads an empty precedence as the default one (its model parser skips the enum check of an empty value), and
 * OpenZiti's console sends `precedence: ""` when none was picked.
 */
function emptyPrecedence(body: Record<string, unknown>): Record<string, unknown> {
  if (body.precedence === '') delete body.precedence;
  return body;
}

/**
 * OpenZiti's console edits a terminator by sending its whole form again, `identity` and `identitySecret` included,
 * which OpenZiti's update models do not have (its parser drops them). Here they are dropped when they change nothing
 * (the stored identity, or empty); any other value is refused by the update schema, naming the field (set at creation
 * only), rather than ignored.
 */
async function update(rt: Runtime, ctx: Ctx, verb: 'replace' | 'patch') {
  const existing = await rt.store.repoFor(terminator).get(ctx.params.id);
  const body = withBody(ctx, (b) => {
    if (b.identity === '' || b.identity === existing.identity) delete b.identity;
    if (b.identitySecret === '') delete b.identitySecret;
    return emptyPrecedence(b);
  });
  return updateResource(rt, terminator, body, verb);
}

function terminatorRoutes(rt: Runtime): Route[] {
  const api = 'management';
  const access = 'admin';
  return [
    {
      method: 'POST',
      path: '/terminators',
      api,
      access,
      responds: answers.created(terminator),
      takes: { resource: terminator.name, verb: 'create' },
      handler: (ctx) => createResource(rt, terminator, withBody(ctx, emptyPrecedence)),
    },
    {
      method: 'PUT',
      path: '/terminators/{id}',
      api,
      access,
      responds: answers.updated(terminator),
      takes: { resource: terminator.name, verb: 'replace' },
      handler: (ctx) => update(rt, ctx, 'replace'),
    },
    {
      method: 'PATCH',
      path: '/terminators/{id}',
      api,
      access,
      responds: answers.updated(terminator),
      takes: { resource: terminator.name, verb: 'patch' },
      handler: (ctx) => update(rt, ctx, 'patch'),
    },
  ];
}

export const terminatorBehaviour: ResourceBehaviour = {
  resource: 'terminator',
  routes: terminatorRoutes,
  hooks: { beforeWrite },
  present: presentTerminators,
};
