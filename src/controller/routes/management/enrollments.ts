import { randomUUID } from 'node:crypto';
import { ApiError, invalidField } from '../../../protocol/errors.js';
import type { Runtime } from '../../runtime.js';
import { newId } from '../../store/repository.js';
import type { ResourceBehaviour } from '../../model/behaviour.js';
import { resource } from '../../../resources/index.js';
import { entityRef, toWire } from '../../model/present.js';
import type { EnrollmentMethod } from '../../pki/enrollment-jwt.js';
import type { Ctx } from '../../server/types.js';
import { created, validBody } from '../kit/crud.js';
import { enrollRoutes } from '../enrollment/enroll.js';
import { certExtendRoutes } from '../enrollment/cert-extend.js';
import { pemCertificates, signedByCa } from './cas.js';
import { answers } from '../kit/describe.js';

export type EnrollmentRequest =
  | { method: 'ott' }
  | { method: 'updb'; username: string }
  | { method: 'ottca'; caId: string };

/**
 * Reads the `enrollment` member of an identity create body: `{ott: true}`, `{ottca: "<CA id>"}` or
 * `{updb: "<username>"}`. As in OpenZiti, `false` and `""` mean the method is not asked for (forms send them), and
 * the username has no minimum length here: OpenZiti's 4 characters apply to the default admin of its first start.
 */
export function parseEnrollmentRequest(value: unknown): EnrollmentRequest | undefined {
  if (value === undefined || value === null) return undefined;
  const obj = value as Record<string, unknown>;
  const asked = (v: unknown) => v !== undefined && v !== null && v !== false && v !== '';
  const keys = Object.keys(obj).filter((k) => asked(obj[k]));
  if (keys.length === 0) return undefined;
  if (keys.length > 1)
    throw invalidField('enrollment', 'give exactly one enrollment method: ott, ottca or updb', value);
  const [method] = keys;
  if (method === 'ott') {
    if (obj.ott !== true) throw invalidField('enrollment.ott', 'must be true', obj.ott);
    return { method: 'ott' };
  }
  if (method === 'updb') {
    const username = obj.updb;
    if (typeof username !== 'string' || username.length > 100) {
      throw invalidField('enrollment.updb', 'must be a username of at most 100 characters', username);
    }
    return { method: 'updb', username };
  }
  if (method === 'ottca') {
    if (typeof obj.ottca !== 'string') throw invalidField('enrollment.ottca', 'must be the id of a CA', obj.ottca);
    return { method: 'ottca', caId: obj.ottca };
  }
  throw invalidField(`enrollment.${method}`, 'is not a known enrollment method (ott, ottca, updb)', obj[method]);
}

export interface PreparedEnrollment {
  id: string;
  method: 'ott' | 'updb' | 'ottca';
  token: string;
  jwt: string;
  expiresAt: string;
  username: string | null;
  caId: string | null;
}

/**
 * Signs the enrollment JWT before the write transaction, so the transaction holds no slow work. Without `expiresAt`
 * the token lives the configured enrollment duration.
 */
export async function prepareEnrollment(
  rt: Runtime,
  identityId: string,
  request: EnrollmentRequest,
  now: Date,
  expiresAt?: Date,
  /** The body fields an error names: the identity's `enrollment.*`, or `POST /enrollments`'s own. */
  fields = { username: 'enrollment.updb', caId: 'enrollment.ottca' },
): Promise<PreparedEnrollment> {
  if (request.method === 'updb') await assertUsernameFree(rt, request.username, fields.username);
  if (request.method === 'ottca' && !(await rt.store.repo('ca').find(request.caId))) {
    throw invalidField(fields.caId, `no CA found with id '${request.caId}'`, request.caId);
  }
  return signEnrollment(
    rt,
    identityId,
    request,
    expiresAt ?? new Date(now.getTime() + rt.config.enrollmentDurationMinutes * 60_000),
  );
}

/** A new enrollment's token and signed JWT, with no checks: for callers that have made theirs. */
async function signEnrollment(
  rt: Runtime,
  identityId: string,
  request: EnrollmentRequest,
  expires: Date,
): Promise<PreparedEnrollment> {
  const { token, jwt } = await newToken(rt, request.method, identityId, expires);
  return {
    id: newId(),
    method: request.method,
    token,
    jwt,
    expiresAt: expires.toISOString(),
    username: request.method === 'updb' ? request.username : null,
    caId: request.method === 'ottca' ? request.caId : null,
  };
}

/** A fresh one-time token and the enrollment JWT that carries it (its jti). */
async function newToken(
  rt: Runtime,
  method: EnrollmentMethod,
  identityId: string,
  expires: Date,
): Promise<{ token: string; jwt: string }> {
  const token = randomUUID();
  return { token, jwt: await rt.enrollmentSigner.sign({ em: method, sub: identityId, jti: token, exp: expires }) };
}

async function assertUsernameFree(rt: Runtime, username: string, field: string): Promise<void> {
  const taken =
    (await rt.store.repo('authenticator').exists({ username })) ||
    (await rt.store.repo('enrollment').exists({ username }));
  if (taken) throw invalidField(field, `the username '${username}' is already in use`, username);
}

/** Stores a prepared enrollment; call inside the transaction that creates the identity. */
export async function insertEnrollment(
  rt: Runtime,
  identityId: string,
  e: PreparedEnrollment,
  now: string,
): Promise<void> {
  const { id, method, expiresAt, username, token, jwt, caId } = e;
  try {
    await rt.writes.insert('enrollment', { identityId, method, expiresAt, username, token, jwt, caId }, { id, now });
  } catch (err) {
    if (err instanceof ApiError && (err.cause as { field?: string } | undefined)?.field === 'method') {
      throw exists(e.method);
    }
    throw err;
  }
}

const enrollment = resource('enrollment');

const REFRESH_BODY = {
  type: 'object',
  properties: { expiresAt: { type: 'string', format: 'date-time' } },
  required: ['expiresAt'],
  additionalProperties: false,
};

/** An expiry a client sends must lie ahead: an enrollment born expired could never be redeemed. */
function futureExpiry(value: string, now: Date): Date {
  const at = new Date(value);
  if (!(at.getTime() > now.getTime()))
    throw invalidField('expiresAt', 'must be after the current date and time', value);
  return at;
}

/**
 * `POST /enrollments`: a new enrollment for an existing identity (ott, or updb with a username). One outstanding
 * enrollment per method and identity: a second is 409 ENROLLMENT_EXISTS, decided by the unique index.
 */
async function createEnrollment(rt: Runtime, ctx: Ctx) {
  const body = await validBody(rt, enrollment, 'create', ctx);
  const identityId = body.identityId as string;
  const expiresAt = futureExpiry(body.expiresAt as string, ctx.now);
  let request: EnrollmentRequest;
  if (body.method === 'ott') request = { method: 'ott' };
  else if (body.method === 'updb') {
    if (typeof body.username !== 'string')
      throw invalidField('username', 'username in body is required for method updb', body.username ?? null);
    request = { method: 'updb', username: body.username };
  } else {
    if (typeof body.caId !== 'string')
      throw invalidField('caId', 'caId in body is required for method ottca', body.caId ?? null);
    request = { method: 'ottca', caId: body.caId };
  }
  if (request.method !== 'updb' && body.username != null)
    throw invalidField('username', 'is only valid for method updb', body.username);
  if (request.method !== 'ottca' && body.caId != null)
    throw invalidField('caId', 'is only valid for method ottca', body.caId);
  if (await rt.store.repoFor(enrollment).exists({ identityId, method: request.method })) throw exists(request.method);
  const prepared = await prepareEnrollment(rt, identityId, request, ctx.now, expiresAt, {
    username: 'username',
    caId: 'caId',
  });
  await rt.store.tx(() => insertEnrollment(rt, identityId, prepared, ctx.now.toISOString()));
  return created(enrollment, prepared.id);
}

function exists(method: string): ApiError {
  return new ApiError('ENROLLMENT_EXISTS', {
    cause: { field: 'method', reason: `an ${method} enrollment already exists for the identity`, value: method },
  });
}

/**
 * `POST /enrollments/{id}/refresh`: a new token and JWT with a new expiry, for an outstanding or expired
 * enrollment. The old token stops working at once: it is no longer stored anywhere.
 */
async function refreshEnrollment(rt: Runtime, ctx: Ctx) {
  const existing = await rt.store.repoFor(enrollment).get(ctx.params.id);
  const { expiresAt } = rt.validators.custom(REFRESH_BODY, await ctx.json()) as { expiresAt: string };
  const expires = futureExpiry(expiresAt, ctx.now);
  const { token, jwt } = await newToken(
    rt,
    existing.method as EnrollmentMethod,
    existing.identityId as string,
    expires,
  );
  await rt.writes.update(
    enrollment.name,
    existing,
    { token, jwt, expiresAt: expires.toISOString() },
    ctx.now.toISOString(),
  );
  // OpenZiti documents the create shape for this 200 (`{id, _links}`), naming the same, refreshed enrollment.
  return { data: created(enrollment, existing.id).data };
}

/**
 * `POST /authenticators/{id}/re-enroll {expiresAt}` (the states table's "revert to enrollment"): the authenticator goes
 * and an enrollment takes its place, in one transaction: updb becomes updb (same username), a certificate this
 * controller issued becomes ott, one a registered CA issued becomes ottca for that CA. The identity's sessions end,
 * as when any credential goes. 201 with the new enrollment's id.
 */
async function reEnroll(rt: Runtime, ctx: Ctx) {
  const authenticator = await rt.store.repo('authenticator').get(ctx.params.id);
  const { expiresAt } = rt.validators.custom(REFRESH_BODY, await ctx.json()) as { expiresAt: string };
  const expires = futureExpiry(expiresAt, ctx.now);
  const identityId = authenticator.identityId as string;
  let request: EnrollmentRequest = { method: 'ott' };
  // Signed without prepareEnrollment's checks: a updb username is the authenticator's own, which goes below.
  if (authenticator.method === 'updb') request = { method: 'updb', username: authenticator.username as string };
  else if (authenticator.isIssuedByNetwork !== true && typeof authenticator.certPem === 'string') {
    const [leaf] = pemCertificates(authenticator.certPem);
    const cas = await rt.store.repo('ca').findAll({}, { columns: ['certPem'] });
    const issuer = leaf && cas.find((ca) => signedByCa(ca, leaf));
    if (issuer) request = { method: 'ottca', caId: issuer.id };
  }
  const prepared = await signEnrollment(rt, identityId, request, expires);
  const now = ctx.now.toISOString();
  await rt.store.tx(async () => {
    // The authenticator first: a updb enrollment takes over its username.
    await rt.writes.delete('authenticator', authenticator);
    await insertEnrollment(rt, identityId, prepared, now);
    await rt.apiSessions.deleteForIdentity(identityId, ctx.principal?.apiSessionId);
  });
  return created(enrollment, prepared.id);
}

// OpenZiti's enrollment detail requires a `details` map; this controller has nothing to put in it yet.
export const enrollmentBehaviour: ResourceBehaviour = {
  resource: 'enrollment',
  routes: (rt) => [
    {
      method: 'POST',
      path: '/enrollments',
      api: 'management',
      access: 'admin',
      responds: answers.created(enrollment),
      takes: { resource: enrollment.name, verb: 'create' },
      handler: (ctx) => createEnrollment(rt, ctx),
    },
    {
      method: 'POST',
      path: '/enrollments/{id}/refresh',
      api: 'management',
      access: 'admin',
      responds: (r) => ({ ...r.created(enrollment, 'the enrollment has a new token and JWT'), status: 200 }),
      handler: (ctx) => refreshEnrollment(rt, ctx),
    },
    {
      method: 'POST',
      path: '/authenticators/{id}/re-enroll',
      api: 'management',
      access: 'admin',
      responds: (r) => r.created(enrollment, 'the authenticator is gone; the enrollment that replaces it'),
      handler: (ctx) => reEnroll(rt, ctx),
    },
    ...enrollRoutes(rt),
    // The certificate's later life (extension) lives with its enrollment.
    ...certExtendRoutes(rt),
  ],
  present: async (rows, rt) => {
    const caIds = [...new Set(rows.map((r) => r.caId).filter((id): id is string => typeof id === 'string'))];
    const cas = caIds.length ? await rt.store.repo('ca').findAll({ id: caIds }, { columns: ['name'] }) : [];
    return rows.map((row) => {
      const wire: Record<string, unknown> = { ...toWire(enrollment, row), details: {} };
      const found = cas.find((c) => c.id === row.caId);
      if (found) wire.ca = entityRef(resource('ca'), found.id, found.name as string);
      return wire;
    });
  },
};
