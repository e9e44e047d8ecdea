import { randomUUID } from 'node:crypto';
import { ApiError, invalidField } from '../../../protocol/errors.js';
import { resource } from '../../../resources/index.js';
import type { EnrollmentMethod } from '../../pki/enrollment-jwt.js';
import type { Runtime } from '../../runtime.js';
import { newId, type Row } from '../../store/repository.js';
import type { ResourceModel } from '../behaviour.js';
import { entityRef, toWire } from '../present.js';
import { pemCertificates, signedByCa } from './ca.js';

const enrollment = resource('enrollment');

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
      throw enrollmentExists(e.method);
    }
    throw err;
  }
}

/** An expiry a client sends must lie ahead: an enrollment born expired could never be redeemed. */
export function futureExpiry(value: string, now: Date): Date {
  const at = new Date(value);
  if (!(at.getTime() > now.getTime()))
    throw invalidField('expiresAt', 'must be after the current date and time', value);
  return at;
}

function enrollmentExists(method: string): ApiError {
  return new ApiError('ENROLLMENT_EXISTS', {
    cause: { field: 'method', reason: `an ${method} enrollment already exists for the identity`, value: method },
  });
}

/**
 * What replaces an authenticator that goes back to enrollment: updb stays updb (same username), a certificate this
 * controller issued becomes ott, one a registered CA issued becomes ottca for that CA.
 */
async function reEnrollmentRequest(rt: Runtime, authenticator: Row): Promise<EnrollmentRequest> {
  if (authenticator.method === 'updb') return { method: 'updb', username: authenticator.username as string };
  if (authenticator.isIssuedByNetwork !== true && typeof authenticator.certPem === 'string') {
    const [leaf] = pemCertificates(authenticator.certPem);
    const cas = await rt.store.repo('ca').findAll({}, { columns: ['certPem'] });
    const issuer = leaf && cas.find((ca) => signedByCa(ca, leaf));
    if (issuer) return { method: 'ottca', caId: issuer.id };
  }
  return { method: 'ott' };
}

/**
 * A new enrollment for an existing identity, expiring at `expiresAt`; answers its id. One outstanding enrollment per
 * method and identity: a second is 409 ENROLLMENT_EXISTS (decided by the unique index when two race past the check).
 */
export async function addEnrollment(
  rt: Runtime,
  identityId: string,
  request: EnrollmentRequest,
  expiresAt: Date,
  at: Date,
): Promise<string> {
  if (await rt.store.repoFor(enrollment).exists({ identityId, method: request.method }))
    throw enrollmentExists(request.method);
  const prepared = await prepareEnrollment(rt, identityId, request, at, expiresAt, {
    username: 'username',
    caId: 'caId',
  });
  await rt.store.tx(() => insertEnrollment(rt, identityId, prepared, at.toISOString()));
  return prepared.id;
}

/**
 * A new token and JWT with a new expiry, for an outstanding or expired enrollment. The old token stops working at
 * once: it is no longer stored anywhere.
 */
export async function renewEnrollment(rt: Runtime, existing: Row, expires: Date, at: Date): Promise<void> {
  const { token, jwt } = await newToken(
    rt,
    existing.method as EnrollmentMethod,
    existing.identityId as string,
    expires,
  );
  await rt.writes.update(enrollment.name, existing, { token, jwt, expiresAt: expires.toISOString() }, at.toISOString());
}

/**
 * The authenticator goes and an enrollment (reEnrollmentRequest) takes its place, in one transaction. The identity's
 * sessions end (all but `keep`, the caller's), as when any credential goes. Answers the enrollment's id.
 */
export async function reEnrollAuthenticator(
  rt: Runtime,
  authenticator: Row,
  expires: Date,
  { keep, at }: { keep?: string; at: Date },
): Promise<string> {
  const identityId = authenticator.identityId as string;
  // Signed without prepareEnrollment's checks: a updb username is the authenticator's own, which goes below.
  const prepared = await signEnrollment(rt, identityId, await reEnrollmentRequest(rt, authenticator), expires);
  const now = at.toISOString();
  await rt.store.tx(async () => {
    // The authenticator first: a updb enrollment takes over its username.
    await rt.writes.delete('authenticator', authenticator);
    await insertEnrollment(rt, identityId, prepared, now);
    await rt.apiSessions.deleteForIdentity(identityId, keep);
  });
  return prepared.id;
}

/** OpenZiti's enrollment detail requires a `details` map; this controller has nothing to put in it yet. */
async function present(rows: Row[], rt: Runtime): Promise<Record<string, unknown>[]> {
  const caIds = [...new Set(rows.map((r) => r.caId).filter((id): id is string => typeof id === 'string'))];
  const cas = caIds.length ? await rt.store.repo('ca').findAll({ id: caIds }, { columns: ['name'] }) : [];
  return rows.map((row) => {
    const wire = toWire(enrollment, row);
    wire.details = {};
    const found = cas.find((c) => c.id === row.caId);
    if (found) wire.ca = entityRef(resource('ca'), found.id, found.name as string);
    return wire;
  });
}

export const model: ResourceModel = { resource: 'enrollment', present };
