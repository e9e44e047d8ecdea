import { invalidField } from '../../../protocol/errors.js';
import { resource } from '../../../resources/index.js';
import {
  enrollmentExists,
  type EnrollmentRequest,
  futureExpiry,
  insertEnrollment,
  newToken,
  prepareEnrollment,
  reEnrollmentRequest,
  signEnrollment,
} from '../../model/resources/enrollment.js';
import type { EnrollmentMethod } from '../../pki/enrollment-jwt.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import { created, validBody } from '../kit/crud.js';
import { standardRoute } from '../kit/describe.js';

const enrollment = resource('enrollment');

const REFRESH_BODY = {
  type: 'object',
  properties: { expiresAt: { type: 'string', format: 'date-time' } },
  required: ['expiresAt'],
  additionalProperties: false,
};

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
  if (await rt.store.repoFor(enrollment).exists({ identityId, method: request.method }))
    throw enrollmentExists(request.method);
  const prepared = await prepareEnrollment(rt, identityId, request, ctx.now, expiresAt, {
    username: 'username',
    caId: 'caId',
  });
  await rt.store.tx(() => insertEnrollment(rt, identityId, prepared, ctx.now.toISOString()));
  return created(enrollment, prepared.id);
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
  // Signed without prepareEnrollment's checks: a updb username is the authenticator's own, which goes below.
  const prepared = await signEnrollment(rt, identityId, await reEnrollmentRequest(rt, authenticator), expires);
  const now = ctx.now.toISOString();
  await rt.store.tx(async () => {
    // The authenticator first: a updb enrollment takes over its username.
    await rt.writes.delete('authenticator', authenticator);
    await insertEnrollment(rt, identityId, prepared, now);
    await rt.apiSessions.deleteForIdentity(identityId, ctx.principal?.apiSessionId);
  });
  return created(enrollment, prepared.id);
}

export function routes(rt: Runtime): Route[] {
  return [
    standardRoute(enrollment, 'create', (ctx) => createEnrollment(rt, ctx)),
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
  ];
}
