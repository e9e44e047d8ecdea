import { randomUUID } from 'node:crypto';
import { ApiError } from '../../../protocol/errors.js';
import { resource, type ResourceDef } from '../../../resources/index.js';
import type { EnrollmentMethod } from '../../pki/enrollment-jwt.js';
import type { ResourceBehaviour } from '../../model/behaviour.js';
import type { Runtime } from '../../runtime.js';
import type { Verb } from '../../server/schemas.js';
import type { Ctx, Route } from '../../server/types.js';
import { newId, type Row } from '../../store/repository.js';
import { withBody } from '../kit/body.js';
import { created, listResource, updateResource, validBody } from '../kit/crud.js';
import { answers } from '../kit/describe.js';
import { fabricRoutes } from './fabric.js';
import { toWire } from '../../model/present.js';

const routerDef = resource('transit-router');

/**
 * The fields an edge router shares with its row in the routers table (OpenZiti's parent router store): written
 * through /edge-routers and copied, in the same transaction, so that terminators, /transit-routers, /routers and the
 * unique router name see every router.
 */
const SHARED_ROUTER_FIELDS = [
  'name',
  'cost',
  'noTraversal',
  'disabled',
  'configs',
  'ctrlChanListeners',
  'fingerprint',
  'isVerified',
  'unverifiedCertPem',
  'unverifiedFingerprint',
] as const;

/**
 * Enrollment fields a router row carries while an enrollment is outstanding (OpenZiti keeps them as enrollment rows).
 */
export interface RouterEnrollment {
  enrollmentToken: string;
  enrollmentJwt: string;
  enrollmentCreatedAt: string;
  enrollmentExpiresAt: string;
}

/**
 * Signs a router enrollment JWT (`erott` for edge routers, `trott` for transit routers), as identity enrollments are
 * signed (src/controller/pki/enrollment-jwt.ts): before the write's transaction, so it holds no slow work.
 */
export async function routerEnrollment(
  rt: Runtime,
  routerId: string,
  method: Extract<EnrollmentMethod, 'erott' | 'trott'>,
  now: Date,
): Promise<RouterEnrollment> {
  const token = randomUUID();
  const expires = new Date(now.getTime() + rt.config.enrollmentDurationMinutes * 60_000);
  const jwt = await rt.enrollmentSigner.sign({ em: method, sub: routerId, jti: token, exp: expires });
  return {
    enrollmentToken: token,
    enrollmentJwt: jwt,
    enrollmentCreatedAt: now.toISOString(),
    enrollmentExpiresAt: expires.toISOString(),
  };
}

/**
 * Creates a router of either kind with its enrollment: the body checked, the JWT signed, then the row and whatever the
 * resource's hooks do with it in one transaction.
 */
export async function createRouterWithEnrollment(rt: Runtime, def: ResourceDef, ctx: Ctx, method: 'erott' | 'trott') {
  const body = await validBody(rt, def, 'create', ctx);
  const id = newId();
  const enrollment = await routerEnrollment(rt, id, method, ctx.now);
  await rt.writes.insert(def.name, body, { id, now: ctx.now.toISOString(), stored: { ...enrollment } });
  return created(def, id);
}

/** Copies an edge router's shared fields to its row in the routers table (made on the first call). */
export async function mirrorEdgeRouter(rt: Runtime, edgeRouterId: string, now: string): Promise<void> {
  const edge = await rt.store.repo('edge-router').get(edgeRouterId);
  const values: Record<string, unknown> = { tags: edge.tags, isEdgeRouter: true };
  for (const field of SHARED_ROUTER_FIELDS) values[field] = edge[field] ?? null;
  const routers = rt.store.repoFor(routerDef);
  const existing = await routers.find(edgeRouterId);
  if (existing) await rt.writes.update(routerDef.name, existing, values, now);
  else await rt.writes.insert(routerDef.name, values, { id: edgeRouterId, now });
}

/** Fields no router has until it connects or enrolls: served as OpenZiti serves them for such a router. */
export function presentRouterState(row: Row): Record<string, unknown> {
  const enrolled = row.isVerified === true;
  return {
    fingerprint: row.fingerprint ?? '',
    // Online means holding a control channel to this controller, which has none: never online (docs/controller.md).
    isOnline: false,
    // OpenZiti shows the outstanding enrollment only until the router has enrolled.
    ...(enrolled
      ? { enrollmentToken: null, enrollmentJwt: null, enrollmentCreatedAt: null, enrollmentExpiresAt: null }
      : {}),
  };
}

function canNotUpdateEdgeRouter(): ApiError {
  return new ApiError('CAN_NOT_UPDATE_ROUTER', {
    status: 409,
    message: 'The router was not added via the Edge API and cannot be updated',
    cause: { field: 'id', reason: 'this router is an edge router: change it through /edge-routers', value: '' },
  });
}

/** Deletes a router: an edge router's row goes with its edge router (and everything that one takes with it). */
async function deleteRouter(rt: Runtime, ctx: Ctx) {
  const existing = await rt.store.repoFor(routerDef).get(ctx.params.id);
  const def = existing.isEdgeRouter ? resource('edge-router') : routerDef;
  const row = existing.isEdgeRouter ? await rt.store.repoFor(def).get(existing.id) : existing;
  await rt.writes.delete(def.name, row);
  return { data: {} };
}

/** An edge router's row is changed through /edge-routers only, as in OpenZiti. */
function guardEdgeRow(body: Record<string, unknown>, existing: Row): Record<string, unknown> {
  if (existing.isEdgeRouter) throw canNotUpdateEdgeRouter();
  return body;
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
function routerRoutes(rt: Runtime): Route[] {
  const api = 'management';
  const access = 'admin';
  const routes: Route[] = [];
  const resource = routerDef.name;
  for (const base of ['/transit-routers', '/routers']) {
    const item = `${base}/{id}`;
    const takes = (verb: Verb) => ({ takes: { resource, verb } });
    const update = (verb: 'replace' | 'patch') => (ctx: Ctx) =>
      updateResource(rt, routerDef, withoutEdgeFields(ctx), verb, guardEdgeRow);
    const create = (ctx: Ctx) => createRouterWithEnrollment(rt, routerDef, withoutEdgeFields(ctx), 'trott');
    const created = answers.created(routerDef);
    const updated = answers.updated(routerDef);
    const deleted = answers.deleted(routerDef);
    routes.push(
      { method: 'POST', path: base, api, access, handler: create, responds: created, ...takes('create') },
      { method: 'PUT', path: item, api, access, handler: update('replace'), responds: updated, ...takes('replace') },
      { method: 'PATCH', path: item, api, access, handler: update('patch'), responds: updated, ...takes('patch') },
      { method: 'DELETE', path: item, api, access, handler: (ctx) => deleteRouter(rt, ctx), responds: deleted },
    );
  }
  // /transit-routers list and get are the generic ones; /routers serves the same.
  routes.push(
    {
      method: 'GET',
      path: '/routers',
      api,
      access,
      handler: (ctx) => listResource(rt, routerDef, ctx),
      responds: answers.list(routerDef),
    },
    {
      method: 'GET',
      path: '/routers/{id}',
      api,
      access,
      handler: async (ctx) => ({
        data: (await rt.present(routerDef, [await rt.store.repoFor(routerDef).get(ctx.params.id)]))[0],
      }),
      responds: answers.detail(routerDef),
    },
  );
  return routes;
}

export const routerBehaviour: ResourceBehaviour = {
  resource: 'transit-router',
  // The fabric API's read-only routers and terminators come with the routers
  // (src/controller/routes/management/fabric.ts).
  routes: (rt) => [...routerRoutes(rt), ...fabricRoutes(rt)],
  present: (rows) => rows.map((row) => ({ ...toWire(routerDef, row), ...presentRouterState(row) })),
};
