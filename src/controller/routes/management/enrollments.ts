import { invalidField } from '../../../protocol/errors.js';
import { resource } from '../../../resources/index.js';
import {
  addEnrollment,
  type EnrollmentRequest,
  futureExpiry,
  reEnrollAuthenticator,
  renewEnrollment,
} from '../../model/resources/enrollment.js';
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
 * `POST /enrollments`: a new enrollment for an existing identity (ott, or updb with a username, or ottca with a CA),
 * the body read into the request its method makes.
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
  return created(enrollment, await addEnrollment(rt, identityId, request, expiresAt, ctx.now));
}

/**
 * `POST /enrollments/{id}/refresh {expiresAt}`: a new token and JWT (src/controller/model/resources/enrollment.ts).
 */
async function refreshEnrollment(rt: Runtime, ctx: Ctx) {
  const existing = await rt.store.repoFor(enrollment).get(ctx.params.id);
  const { expiresAt } = rt.validators.custom(REFRESH_BODY, await ctx.json()) as { expiresAt: string };
  const expires = futureExpiry(expiresAt, ctx.now);
  await renewEnrollment(rt, existing, expires, ctx.now);
  // OpenZiti documents the create shape for this 200 (`{id, _links}`), naming the same, refreshed enrollment.
  return { data: created(enrollment, existing.id).data };
}

/**
 * `POST /authenticators/{id}/re-enroll {expiresAt}` (the states table's "revert to enrollment"): 201 with the id of
 * the enrollment that takes the authenticator's place.
 */
async function reEnroll(rt: Runtime, ctx: Ctx) {
  const authenticator = await rt.store.repo('authenticator').get(ctx.params.id);
  const { expiresAt } = rt.validators.custom(REFRESH_BODY, await ctx.json()) as { expiresAt: string };
  const expires = futureExpiry(expiresAt, ctx.now);
  const id = await reEnrollAuthenticator(rt, authenticator, expires, {
    keep: ctx.principal?.apiSessionId,
    at: ctx.now,
  });
  return created(enrollment, id);
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
