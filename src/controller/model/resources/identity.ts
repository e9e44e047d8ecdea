import { ApiError, invalidField, notFound } from '../../../protocol/errors.js';
import { resource } from '../../../resources/index.js';
import { isDisabled } from '../../auth/identity-state.js';
import type { Runtime } from '../../runtime.js';
import { type Lookup, lookupOfValue, newId, type Row } from '../../store/repository.js';
import type { ReadStore } from '../../store/read-only.js';
import { mfaEnabledOf } from '../auth/mfa.js';
import type { ResourceModel } from '../behaviour.js';
import { entityRef, toWire } from '../present.js';
import { insertEnrollment, parseEnrollmentRequest, prepareEnrollment } from './enrollment.js';

const identity = resource('identity');
const identityType = resource('identity-type');
const authPolicy = resource('auth-policy');

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
export function guardUpdate(body: Record<string, unknown>, existing: Row): Record<string, unknown> {
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

/** A new identity from a validated create body, with the enrollment it asks for; answers its id. */
export async function createIdentity(rt: Runtime, body: Record<string, unknown>, at: Date): Promise<string> {
  const enrollmentRequest = parseEnrollmentRequest(body.enrollment);
  const id = newId();
  const enrollment = enrollmentRequest && (await prepareEnrollment(rt, id, enrollmentRequest, at));
  const now = at.toISOString();
  await rt.store.tx(async () => {
    await rt.writes.insert(identity.name, storedType(body), { id, now });
    if (enrollment) await insertEnrollment(rt, id, enrollment, now);
  });
  return id;
}

/** Deletes an identity, unless it is the default admin or a tunneler router's identity. */
export async function deleteIdentity(rt: Runtime, existing: Row): Promise<void> {
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
}

/**
 * Disables an identity for `durationMinutes` (0: until enabled) and ends its API sessions; `by`, the identity asking,
 * cannot disable itself (it would end the session doing it).
 */
export async function disableIdentity(
  rt: Runtime,
  existing: Row,
  { durationMinutes, at, by }: { durationMinutes: number; at: Date; by?: string },
): Promise<void> {
  if (existing.id === by) {
    throw invalidField('id', 'an identity cannot disable itself (it would end the session doing it)', existing.id);
  }
  const now = at.toISOString();
  const until = durationMinutes === 0 ? null : new Date(at.getTime() + durationMinutes * 60_000).toISOString();
  await rt.store.tx(async () => {
    await rt.writes.update(identity.name, existing, { disabledAt: now, disabledUntil: until }, now);
    await rt.apiSessions.deleteForIdentity(existing.id);
  });
}

export async function enableIdentity(rt: Runtime, existing: Row, at: Date): Promise<void> {
  await rt.writes.update(identity.name, existing, { disabledAt: null, disabledUntil: null }, at.toISOString());
}

/** What the identity read model gathers from related rows for these identities, to be read in one round trip. */
function readModelLookups(store: ReadStore, ids: string[]) {
  return [
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
  ] as const;
}

/** What `readModelLookups` read: authenticators, enrollments, and the ids of those with an API session. */
type Gathered = readonly [Row[], Row[], unknown[]];

/** The identity read model: the generic fields plus what is computed from related rows, fetched once per page. */
async function presentIdentities(rows: Row[], rt: Runtime): Promise<Record<string, unknown>[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  return presentGathered(rows, await rt.store.readTogether(readModelLookups(rt.store, ids)), rt);
}

/** The lookups of one identity's row and what its read model gathers, as a function of its id. */
type ByIdLookups = (id: string) => readonly [Lookup<Row | undefined>, Lookup<Row[]>, Lookup<Row[]>, Lookup<unknown[]>];

/**
 * Each store's by-id lookups, made at its first GET by id: every later one binds its id only (building the lookups'
 * texts and conditions again was 2 to 3 µs of each, docs/performance.md).
 */
const byIdLookups = new WeakMap<ReadStore, ByIdLookups>();

function byIdLookupsOf(store: ReadStore): ByIdLookups {
  const known = byIdLookups.get(store);
  if (known) return known;
  const row = lookupOfValue(store.repo(identity.name).findLookup(''));
  const [authenticators, enrollments, sessionOwners] = readModelLookups(store, ['']);
  const [ofAuthenticators, ofEnrollments] = [lookupOfValue(authenticators), lookupOfValue(enrollments)];
  const ofSessionOwners = lookupOfValue(sessionOwners);
  const made: ByIdLookups = (id) => [row(id), ofAuthenticators(id), ofEnrollments(id), ofSessionOwners(id)] as const;
  byIdLookups.set(store, made);
  return made;
}

/**
 * One identity by id: its row read with what its read model gathers, one statement on PostgreSQL where reading the
 * row first would cost a round trip more.
 */
async function presentIdentityById(id: string, rt: Runtime): Promise<Record<string, unknown>> {
  const [row, authenticators, enrollments, sessionOwners] = await rt.store.readTogether(byIdLookupsOf(rt.store)(id));
  if (!row) throw notFound(identity.name, id);
  return (await presentGathered([row], [authenticators, enrollments, sessionOwners], rt))[0];
}

/** The rows' read model from what `readModelLookups` read, with what is rarely there read after (CAs, MFA). */
async function presentGathered(
  rows: Row[],
  [authenticators, enrollments, sessionOwners]: Gathered,
  rt: Runtime,
): Promise<Record<string, unknown>[]> {
  const { store } = rt;
  const ids = rows.map((r) => r.id);
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
    // Added to the generic read model's object, where a spread into a new one with these fields cost V8 some 14 us
    // per identity (docs/performance.md); the fields come out in the same order.
    wire.typeId = row.type;
    wire.type = entityRef(identityType, row.type as string, row.type as string);
    wire.authPolicy = entityRef(authPolicy, row.authPolicyId as string, row.refNames.authPolicyId);
    wire.disabled = isDisabled(row, now);
    wire.authenticators = auth;
    wire.enrollment = enrollment;
    wire.hasApiSession = withSession.has(row.id);
    wire.isMfaEnabled = mfaEnabled.has(row.id);
    wire.hasEdgeRouterConnection = false;
    wire.edgeRouterConnectionStatus = 'offline';
    wire.permissions = [];
    return wire;
  });
}

export const model: ResourceModel = {
  resource: 'identity',
  present: presentIdentities,
  presentById: presentIdentityById,
  answerKept: {
    // The row and its auth policy's name; its authenticators, enrollments (with their CAs' names), whether it has
    // an API session and whether its MFA is enabled (presentGathered).
    readsFrom: [identity.name, authPolicy.name, 'authenticator', 'enrollment', 'ca', 'api-session', 'mfa'],
    // A disabled identity's answer turns when its `disabledUntil` passes, with no write.
    unless: (answer) => answer.disabled === true,
  },
};
