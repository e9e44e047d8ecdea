import { randomUUID } from 'node:crypto';
import { ApiError } from '../../../protocol/errors.js';
import { resource, type ResourceDef } from '../../../resources/index.js';
import type { EnrollmentMethod } from '../../pki/enrollment-jwt.js';
import type { Runtime } from '../../runtime.js';
import { newId, type Row } from '../../store/repository.js';
import type { ResourceModel } from '../behaviour.js';
import { toWire } from '../present.js';

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
 * Creates a router of either kind with its enrollment from a validated body: the JWT signed, then the row and whatever
 * the resource's hooks do with it in one transaction. Answers its id.
 */
export async function createRouterWithEnrollment(
  rt: Runtime,
  def: ResourceDef,
  body: Record<string, unknown>,
  method: 'erott' | 'trott',
  at: Date,
): Promise<string> {
  const id = newId();
  const enrollment = await routerEnrollment(rt, id, method, at);
  await rt.writes.insert(def.name, body, { id, now: at.toISOString(), stored: { ...enrollment } });
  return id;
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

/**
 * Fields no router has until it connects or enrolls, added to its read model as OpenZiti serves them for such a
 * router. Added to the read model's own object: spread into a new one, V8 took a slow path for each router served.
 */
export function addRouterState(wire: Record<string, unknown>, row: Row): Record<string, unknown> {
  wire.fingerprint = row.fingerprint ?? '';
  // Online means holding a control channel to this controller, which has none: never online (docs/controller.md).
  wire.isOnline = false;
  // OpenZiti shows the outstanding enrollment only until the router has enrolled.
  if (row.isVerified === true) {
    wire.enrollmentToken = null;
    wire.enrollmentJwt = null;
    wire.enrollmentCreatedAt = null;
    wire.enrollmentExpiresAt = null;
  }
  return wire;
}

function canNotUpdateEdgeRouter(): ApiError {
  return new ApiError('CAN_NOT_UPDATE_ROUTER', {
    status: 409,
    message: 'The router was not added via the Edge API and cannot be updated',
    cause: { field: 'id', reason: 'this router is an edge router: change it through /edge-routers', value: '' },
  });
}

/** Deletes a router: an edge router's row goes with its edge router (and everything that one takes with it). */
export async function deleteRouter(rt: Runtime, existing: Row): Promise<void> {
  const def = existing.isEdgeRouter ? resource('edge-router') : routerDef;
  const row = existing.isEdgeRouter ? await rt.store.repoFor(def).get(existing.id) : existing;
  await rt.writes.delete(def.name, row);
}

/** An edge router's row is changed through /edge-routers only, as in OpenZiti. */
export function guardEdgeRow(body: Record<string, unknown>, existing: Row): Record<string, unknown> {
  if (existing.isEdgeRouter) throw canNotUpdateEdgeRouter();
  return body;
}

export const model: ResourceModel = {
  resource: 'transit-router',
  present: (rows) => rows.map((row) => addRouterState(toWire(routerDef, row), row)),
};
