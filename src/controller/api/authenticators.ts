import { ApiError, invalidField, notFound } from '../../protocol/errors.js';
import { password as passwordType, username as usernameType } from '../../resources/common.js';
import { resource } from '../../resources/index.js';
import { hashPassword, verifyPassword } from '../auth/password.js';
import { addressKey } from '../server/listener.js';
import type { Services } from '../services.js';
import { TAGS_SCHEMA, typeSchema } from '../server/schemas.js';
import type { Ctx, Route } from '../server/types.js';
import type { Row } from '../store/repository.js';
import { created, listResource, validBody } from './crud.js';

const authenticator = resource('authenticator');

const nullable = (schema: Record<string, unknown>) => ({ ...schema, type: [schema.type as string, 'null'] });
const tags = { ...TAGS_SCHEMA, type: ['object', 'null'] };

/** Bodies of the current identity's own password change: the current password proves it is really them. */
const OWN_REPLACE = {
  type: 'object',
  properties: { username: typeSchema(usernameType), password: typeSchema(passwordType), currentPassword: typeSchema(passwordType), tags },
  required: ['username', 'password', 'currentPassword'],
  additionalProperties: false,
};
const OWN_PATCH = {
  type: 'object',
  properties: {
    username: nullable(typeSchema(usernameType)),
    password: nullable(typeSchema(passwordType)),
    currentPassword: typeSchema(passwordType),
    tags,
  },
  required: ['currentPassword'],
  additionalProperties: false,
};

export function authenticatorRoutes(services: Services): Route[] {
  return [
    { method: 'POST', path: '/authenticators', api: 'management', access: 'admin', handler: (ctx) => createAuthenticator(services, ctx) },
    { method: 'PUT', path: '/authenticators/{id}', api: 'management', access: 'admin', handler: (ctx) => adminUpdate(services, ctx, 'replace') },
    { method: 'PATCH', path: '/authenticators/{id}', api: 'management', access: 'admin', handler: (ctx) => adminUpdate(services, ctx, 'patch') },
    { method: 'DELETE', path: '/authenticators/{id}', api: 'management', access: 'admin', handler: (ctx) => adminDelete(services, ctx) },
    { method: 'GET', path: '/current-identity/authenticators', api: 'both', access: 'session', handler: (ctx) => listOwn(services, ctx) },
    { method: 'GET', path: '/current-identity/authenticators/{id}', api: 'both', access: 'session', handler: (ctx) => ({ data: services.present(authenticator, [ownAuthenticator(services, ctx)])[0] }) },
    { method: 'PUT', path: '/current-identity/authenticators/{id}', api: 'both', access: 'session', handler: (ctx) => updateOwn(services, ctx, OWN_REPLACE) },
    { method: 'PATCH', path: '/current-identity/authenticators/{id}', api: 'both', access: 'session', handler: (ctx) => updateOwn(services, ctx, OWN_PATCH) },
  ];
}

async function createAuthenticator(services: Services, ctx: Ctx) {
  const body = await validBody(services, authenticator, 'create', ctx);
  if (body.method !== 'updb') {
    throw new ApiError('INVALID_AUTHENTICATOR_PROPERTIES', {
      message: 'only updb authenticators can be created here; certificate authenticators are created by enrollment',
      cause: { field: 'method', reason: 'must be updb', value: String(body.method) },
    });
  }
  if (body.certPem !== undefined) throw invalidField('certPem', 'is only valid for method cert', '<certificate>');
  if (typeof body.username !== 'string') throw invalidField('username', 'username in body is required for method updb', body.username);
  if (typeof body.password !== 'string') throw invalidField('password', 'password in body is required for method updb', '');
  const existing = services.store.prepare(`SELECT 1 FROM authenticators WHERE "identityId" = ? AND "method" = 'updb'`).get(body.identityId);
  if (existing) {
    throw new ApiError('MAX_AUTHENTICATOR_METHODS_REACHED', { message: 'the identity already has a updb authenticator; update it instead' });
  }
  const hash = await hashPassword(body.password);
  const id = services.store.tx(() =>
    services.store.repoFor(authenticator).insert({ ...body, password: hash }, { now: ctx.now.toISOString() }),
  );
  return created(authenticator, id);
}

async function adminUpdate(services: Services, ctx: Ctx, verb: 'replace' | 'patch') {
  const existing = services.store.repoFor(authenticator).get(ctx.params.id);
  const body = await validBody(services, authenticator, verb, ctx);
  await applyUpdate(services, existing, body, ctx.now, ctx.principal?.apiSessionId);
  return { data: {} };
}

/** A credential that goes takes its identity's sessions with it (all but the caller's own, if it is theirs). */
function adminDelete(services: Services, ctx: Ctx) {
  const existing = services.store.repoFor(authenticator).get(ctx.params.id);
  services.store.tx(() => {
    services.store.repoFor(authenticator).delete(existing.id);
    services.sessions.deleteForIdentity(existing.identityId as string, ctx.principal?.apiSessionId);
  });
  return { data: {} };
}

/** Changes username and/or password of a updb authenticator; a password is stored only as its hash. */
/** A new password ends the identity's other sessions: whoever knew the old one is logged out (`keep` is spared). */
async function applyUpdate(services: Services, existing: Row, body: Record<string, unknown>, now: Date, keep?: string): Promise<void> {
  if (existing.method !== 'updb') {
    throw new ApiError('CAN_NOT_UPDATE_AUTHENTICATOR', { message: 'only updb authenticators have a username and password to change' });
  }
  const values: Record<string, unknown> = {};
  if (typeof body.username === 'string') values.username = body.username;
  if (typeof body.password === 'string') values.password = await hashPassword(body.password);
  if (body.tags !== undefined) values.tags = body.tags ?? {};
  services.store.tx(() => {
    services.store.repoFor(authenticator).update(existing.id, values, now.toISOString());
    if (values.password !== undefined) services.sessions.deleteForIdentity(existing.identityId as string, keep);
  });
}

function listOwn(services: Services, ctx: Ctx) {
  return listResource(services, authenticator, ctx, { sql: `e."identityId" = ?`, params: [ctx.principal!.identityId] });
}

/** Another identity's authenticator is reported as not found, so ids of others cannot be probed. */
function ownAuthenticator(services: Services, ctx: Ctx): Row {
  const row = services.store.repoFor(authenticator).find(ctx.params.id);
  if (!row || row.identityId !== ctx.principal!.identityId) throw notFound('authenticator', ctx.params.id);
  return row;
}

async function updateOwn(services: Services, ctx: Ctx, schema: Record<string, unknown>) {
  const existing = ownAuthenticator(services, ctx);
  const body = services.validators.custom(schema, await ctx.json());
  // Renaming oneself would tell taken usernames from free ones: only an administrator renames, one answer for all.
  if (typeof body.username === 'string' && body.username !== existing.username) {
    throw invalidField('username', 'a username is changed by an administrator; send the current one or leave it out', '<redacted>');
  }
  const stored = services.store.prepare(`SELECT "password" FROM authenticators WHERE "id" = ?`).get(existing.id) as { password: string | null };
  // A session is no licence to guess the password it was opened with: the same throttle as logins.
  const client = addressKey(ctx.remoteAddress);
  services.loginThrottle.check(client, String(existing.username));
  if (!(await services.passwordChecks.run(() => verifyPassword(body.currentPassword as string, stored.password)))) {
    services.loginThrottle.failed(client, String(existing.username), existing.identityId as string);
    throw invalidField('currentPassword', 'does not match the current password', '<redacted>');
  }
  await applyUpdate(services, existing, body, ctx.now, ctx.principal!.apiSessionId);
  return { data: {} };
}
