import { ApiError, invalidField } from '../../../protocol/errors.js';
import { resource } from '../../../resources/index.js';
import { isDisabled } from '../../auth/identity-state.js';
import { mfaEnabledOf } from '../../model/auth/mfa.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import type { Row } from '../../store/repository.js';
import { created, updateResource, validBody } from '../kit/crud.js';
import { insertEnrollment, parseEnrollmentRequest, prepareEnrollment } from './enrollments.js';
import { entityRef, toWire } from '../../model/present.js';
import { newId } from '../../store/repository.js';
import type { ResourceBehaviour } from '../../model/behaviour.js';
import { answers } from '../kit/describe.js';

const identity = resource('identity');
const identityType = resource('identity-type');
const authPolicy = resource('auth-policy');

const DISABLE_SCHEMA = {
  type: 'object',
  // At most 100 years, so disabledUntil stays a sane date; 0 disables until enabled.
  properties: { durationMinutes: { type: 'integer', minimum: 0, maximum: 52_560_000 } },
  required: ['durationMinutes'],
  additionalProperties: false,
};

/**
 * Every identity type the API accepts is stored as the built-in `Default`, as OpenZiti does: `Router` identities
 * are made by the controller for tunneler-enabled routers, never through this API.
 */
function storedType(body: Record<string, unknown>): Record<string, unknown> {
  return withoutEmptyExternalId(body.type === undefined ? body : { ...body, type: 'Default' });
}

/**
 * An empty external id means none: ZAC's identity form sends `"externalId": ""` by default and when the field is
 * cleared. Stored as null, so that the unique index never sees two identities with "" as a clash.
 */
function withoutEmptyExternalId(body: Record<string, unknown>): Record<string, unknown> {
  return body.externalId === '' ? { ...body, externalId: null } : body;
}

/**
 * Guards of an identity update. The default admin keeps its admin rights: losing them could lock everyone out of
 * the controller. A tunneler router's identity (type Router, made with its edge router) stays a Router identity.
 */
function guardUpdate(body: Record<string, unknown>, existing: Row): Record<string, unknown> {
  if (existing.isDefaultAdmin && body.isAdmin === false) {
    throw new ApiError('ENTITY_CAN_NOT_BE_UPDATED', {
      message: 'the default admin cannot lose its admin rights',
      cause: { field: 'isAdmin', reason: 'the default admin must stay an admin', value: 'false' },
    });
  }
  if (existing.type === 'Router') {
    if (body.type !== undefined && body.type !== 'Router')
      throw invalidField('type', "is Router for a tunneler router's identity, and stays so", body.type);
    const { type: _, ...rest } = body;
    return rest;
  }
  return storedType(body);
}

export function identityRoutes(rt: Runtime): Route[] {
  const api = 'management';
  return [
    {
      method: 'POST',
      path: '/identities',
      api,
      access: 'admin',
      responds: answers.created(identity),
      takes: { resource: identity.name, verb: 'create' },
      handler: (ctx) => createIdentity(rt, ctx),
    },
    {
      method: 'PUT',
      path: '/identities/{id}',
      api,
      access: 'admin',
      responds: answers.updated(identity),
      takes: { resource: identity.name, verb: 'replace' },
      handler: (ctx) => updateResource(rt, identity, ctx, 'replace', guardUpdate),
    },
    {
      method: 'PATCH',
      path: '/identities/{id}',
      api,
      access: 'admin',
      responds: answers.updated(identity),
      takes: { resource: identity.name, verb: 'patch' },
      handler: (ctx) => updateResource(rt, identity, ctx, 'patch', guardUpdate),
    },
    {
      method: 'DELETE',
      path: '/identities/{id}',
      api,
      access: 'admin',
      responds: answers.deleted(identity),
      handler: (ctx) => deleteIdentity(rt, ctx),
    },
    {
      method: 'POST',
      path: '/identities/{id}/disable',
      api,
      access: 'admin',
      responds: (r) => r.empty('the identity was disabled'),
      handler: (ctx) => disableIdentity(rt, ctx),
    },
    {
      method: 'POST',
      path: '/identities/{id}/enable',
      api,
      access: 'admin',
      responds: (r) => r.empty('the identity was enabled'),
      handler: (ctx) => enableIdentity(rt, ctx),
    },
  ];
}

async function createIdentity(rt: Runtime, ctx: Ctx) {
  const body = await validBody(rt, identity, 'create', ctx);
  const enrollmentRequest = parseEnrollmentRequest(body.enrollment);
  const id = newId();
  const enrollment = enrollmentRequest && (await prepareEnrollment(rt, id, enrollmentRequest, ctx.now));
  const now = ctx.now.toISOString();
  await rt.store.tx(async () => {
    await rt.writes.insert(identity.name, storedType(body), { id, now });
    if (enrollment) await insertEnrollment(rt, id, enrollment, now);
  });
  return created(identity, id);
}

async function deleteIdentity(rt: Runtime, ctx: Ctx) {
  const existing = await rt.store.repoFor(identity).get(ctx.params.id);
  if (existing.isDefaultAdmin)
    throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { message: 'the default admin cannot be deleted' });
  // A tunneler router's identity goes with its router (or when the router stops being a tunneler), not before.
  if (existing.type === 'Router' && (await rt.store.repo('edge-router').exists({ id: existing.id }))) {
    throw new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY', {
      message:
        `the identity '${existing.id}' is the tunneler identity of edge ` +
        `router '${existing.id}'; delete the router or turn its tunneler off`,
      cause: { field: 'id', reason: 'the identity of a tunneler-enabled edge router', value: existing.id },
    });
  }
  // Authenticators, enrollments and API sessions go with it (ON DELETE CASCADE), in the same transaction; its
  // hooks forget what the controller keeps in memory for it.
  await rt.writes.delete(identity.name, existing);
  return { data: {} };
}

async function disableIdentity(rt: Runtime, ctx: Ctx) {
  const existing = await rt.store.repoFor(identity).get(ctx.params.id);
  const { durationMinutes } = rt.validators.custom(DISABLE_SCHEMA, await ctx.json()) as { durationMinutes: number };
  if (existing.id === ctx.principal?.identityId) {
    throw invalidField('id', 'an identity cannot disable itself (it would end the session doing it)', existing.id);
  }
  const now = ctx.now.toISOString();
  const until = durationMinutes === 0 ? null : new Date(ctx.now.getTime() + durationMinutes * 60_000).toISOString();
  await rt.store.tx(async () => {
    await rt.writes.update(identity.name, existing, { disabledAt: now, disabledUntil: until }, now);
    await rt.apiSessions.deleteForIdentity(existing.id);
  });
  return { data: {} };
}

async function enableIdentity(rt: Runtime, ctx: Ctx) {
  const existing = await rt.store.repoFor(identity).get(ctx.params.id);
  await rt.writes.update(identity.name, existing, { disabledAt: null, disabledUntil: null }, ctx.now.toISOString());
  return { data: {} };
}

/** The identity read model: the generic fields plus what is computed from related rows, fetched once per page. */
export async function presentIdentities(rows: Row[], rt: Runtime): Promise<Record<string, unknown>[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const { store } = rt;
  const [authenticators, enrollments, sessionOwners] = await store.readTogether([
    store.repo('authenticator').lookup(
      { identityId: ids },
      {
        columns: ['identityId', 'method', 'username', 'fingerprint'],
      },
    ),
    store.repo('enrollment').lookup(
      { identityId: ids },
      {
        columns: ['identityId', 'method', 'token', 'jwt', 'expiresAt', 'caId'],
      },
    ),
    store.repo('api-session').distinctLookup('identityId', { identityId: ids }),
  ] as const);
  const caIds = [...new Set(enrollments.flatMap((e) => (typeof e.caId === 'string' ? [e.caId] : [])))];
  const caNames = new Map(
    caIds.length
      ? (await store.repo('ca').findAll({ id: caIds }, { columns: ['name'] })).map((c) => [c.id, c.name as string])
      : [],
  );
  const withSession = new Set(sessionOwners);
  const mfaEnabled = await mfaEnabledOf(rt, ids);
  const now = rt.clock();
  return rows.map((row) => {
    const wire = toWire(identity, row);
    const auth: Record<string, unknown> = {};
    for (const a of authenticators.filter((x) => x.identityId === row.id)) {
      if (a.method === 'updb') auth.updb = { id: a.id, username: a.username };
      if (a.method === 'cert') auth.cert = { id: a.id, fingerprint: a.fingerprint };
    }
    const enrollment: Record<string, unknown> = {};
    for (const e of enrollments.filter((x) => x.identityId === row.id)) {
      const served: Record<string, unknown> = { id: e.id, jwt: e.jwt, token: e.token, expiresAt: e.expiresAt };
      if (e.method === 'ottca' && typeof e.caId === 'string')
        Object.assign(served, { caId: e.caId, ca: entityRef(resource('ca'), e.caId, caNames.get(e.caId)) });
      enrollment[e.method as string] = served;
    }
    const links = wire._links as Record<string, unknown>;
    links['auth-policies'] = { href: `./auth-policies/${row.authPolicyId}` };
    return {
      ...wire,
      typeId: row.type,
      type: entityRef(identityType, row.type as string, row.type as string),
      authPolicy: entityRef(authPolicy, row.authPolicyId as string, row.refNames.authPolicyId),
      disabled: isDisabled(row, now),
      authenticators: auth,
      enrollment,
      hasApiSession: withSession.has(row.id),
      isMfaEnabled: mfaEnabled.has(row.id),
      hasEdgeRouterConnection: false,
      edgeRouterConnectionStatus: 'offline',
      permissions: [],
    };
  });
}

export const identityBehaviour: ResourceBehaviour = {
  resource: 'identity',
  routes: identityRoutes,
  present: presentIdentities,
};
