import { ApiError, invalidField, notFound } from '../../../protocol/errors.js';
import { password as passwordType, username as usernameType } from '../../../resources/common.js';
import { resource } from '../../../resources/index.js';
import type { Runtime } from '../../runtime.js';
import { addressKey } from '../../server/listener.js';
import { TAGS_SCHEMA, typeSchema } from '../../server/schemas.js';
import type { Ctx, Route } from '../../server/types.js';
import type { Row } from '../../store/repository.js';
import { checkPasswordRules } from '../../model/auth/auth-policy-rules.js';
import { created, listResource, validBody } from '../kit/crud.js';
import { answers, standardRoute } from '../kit/describe.js';

const authenticator = resource('authenticator');

const nullable = (schema: Record<string, unknown>) => ({ ...schema, type: [schema.type as string, 'null'] });
const tags = { ...TAGS_SCHEMA, type: ['object', 'null'] };

/** Bodies of the current identity's own password change: the current password proves it is really them. */
const OWN_REPLACE = {
  type: 'object',
  properties: {
    username: typeSchema(usernameType),
    password: typeSchema(passwordType),
    currentPassword: typeSchema(passwordType),
    tags,
  },
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

export function routes(rt: Runtime): Route[] {
  return [
    standardRoute(authenticator, 'create', (ctx) => createAuthenticator(rt, ctx)),
    standardRoute(authenticator, 'replace', (ctx) => adminUpdate(rt, ctx, 'replace')),
    standardRoute(authenticator, 'patch', (ctx) => adminUpdate(rt, ctx, 'patch')),
    standardRoute(authenticator, 'delete', (ctx) => adminDelete(rt, ctx)),
    standardRoute(authenticator, 'list', (ctx) => listOwn(rt, ctx), {
      base: '/current-identity/authenticators',
      api: 'both',
      access: 'session',
    }),
    standardRoute(
      authenticator,
      'get',
      async (ctx) => ({ data: (await rt.present(authenticator, [await ownAuthenticator(rt, ctx)]))[0] }),
      { base: '/current-identity/authenticators', api: 'both', access: 'session' },
    ),
    {
      method: 'PUT',
      path: '/current-identity/authenticators/{id}',
      api: 'both',
      access: 'session',
      responds: answers.updated(authenticator),
      handler: (ctx) => updateOwn(rt, ctx, OWN_REPLACE),
    },
    {
      method: 'PATCH',
      path: '/current-identity/authenticators/{id}',
      api: 'both',
      access: 'session',
      responds: answers.updated(authenticator),
      handler: (ctx) => updateOwn(rt, ctx, OWN_PATCH),
    },
  ];
}

async function createAuthenticator(rt: Runtime, ctx: Ctx) {
  const body = await validBody(rt, authenticator, 'create', ctx);
  if (body.method !== 'updb') {
    throw new ApiError('INVALID_AUTHENTICATOR_PROPERTIES', {
      message: 'only updb authenticators can be created here; certificate authenticators are created by enrollment',
      cause: { field: 'method', reason: 'must be updb', value: String(body.method) },
    });
  }
  if (body.certPem !== undefined) throw invalidField('certPem', 'is only valid for method cert', '<certificate>');
  if (typeof body.username !== 'string')
    throw invalidField('username', 'username in body is required for method updb', body.username);
  if (typeof body.password !== 'string')
    throw invalidField('password', 'password in body is required for method updb', '');
  const repo = rt.store.repoFor(authenticator);
  const oneMore = () =>
    new ApiError('MAX_AUTHENTICATOR_METHODS_REACHED', {
      message: 'the identity already has a updb authenticator; update it instead',
    });
  if (await repo.exists({ identityId: body.identityId as string, method: 'updb' })) throw oneMore();
  await checkPasswordRules(rt, body.identityId as string, body.password);
  const hash = await rt.passwords.hash(body.password);
  // The check above spares the hashing work; the unique index decides when two creates race past it.
  const id = await rt.writes
    .insert(authenticator.name, { ...body, password: hash }, { now: ctx.now.toISOString() })
    .catch((err: unknown) => {
      throw err instanceof ApiError && (err.cause as { field?: string } | undefined)?.field === 'identityId'
        ? oneMore()
        : err;
    });
  return created(authenticator, id);
}

async function adminUpdate(rt: Runtime, ctx: Ctx, verb: 'replace' | 'patch') {
  const existing = await rt.store.repoFor(authenticator).get(ctx.params.id);
  const body = await validBody(rt, authenticator, verb, ctx, existing);
  await applyUpdate(rt, existing, body, ctx.now, ctx.principal?.apiSessionId);
  return { data: {} };
}

/** A credential that goes takes its identity's sessions with it (all but the caller's own, if it is theirs). */
async function adminDelete(rt: Runtime, ctx: Ctx) {
  const existing = await rt.store.repoFor(authenticator).get(ctx.params.id);
  await rt.store.tx(async () => {
    await rt.writes.delete(authenticator.name, existing);
    await rt.apiSessions.deleteForIdentity(existing.identityId as string, ctx.principal?.apiSessionId);
  });
  return { data: {} };
}

/** Changes username and/or password of a updb authenticator; a password is stored only as its hash. */
/** A new password ends the identity's other sessions: whoever knew the old one is logged out (`keep` is spared). */
async function applyUpdate(
  rt: Runtime,
  existing: Row,
  body: Record<string, unknown>,
  now: Date,
  keep?: string,
): Promise<void> {
  if (existing.method !== 'updb') {
    throw new ApiError('CAN_NOT_UPDATE_AUTHENTICATOR', {
      message: 'only updb authenticators have a username and password to change',
    });
  }
  const values: Record<string, unknown> = {};
  if (typeof body.username === 'string') values.username = body.username;
  if (typeof body.password === 'string') {
    await checkPasswordRules(rt, existing.identityId as string, body.password);
    values.password = await rt.passwords.hash(body.password);
  }
  if (body.tags !== undefined) values.tags = body.tags ?? {};
  await rt.store.tx(async () => {
    await rt.writes.update(authenticator.name, existing, values, now.toISOString());
    if (values.password !== undefined) await rt.apiSessions.deleteForIdentity(existing.identityId as string, keep);
  });
}

function listOwn(rt: Runtime, ctx: Ctx) {
  return listResource(rt, authenticator, ctx, { where: { identityId: ctx.principal!.identityId } });
}

/** Another identity's authenticator is reported as not found, so ids of others cannot be probed. */
async function ownAuthenticator(rt: Runtime, ctx: Ctx): Promise<Row> {
  const row = await rt.store.repoFor(authenticator).find(ctx.params.id);
  if (!row || row.identityId !== ctx.principal!.identityId) throw notFound('authenticator', ctx.params.id);
  return row;
}

async function updateOwn(rt: Runtime, ctx: Ctx, schema: Record<string, unknown>) {
  const existing = await ownAuthenticator(rt, ctx);
  const body = rt.validators.custom(schema, await ctx.json());
  // Renaming oneself would tell taken usernames from free ones: only an administrator renames, one answer for all.
  if (typeof body.username === 'string' && body.username !== existing.username) {
    throw invalidField(
      'username',
      'a username is changed by an administrator; send the current one or leave it out',
      '<redacted>',
    );
  }
  const stored = (existing.password as string | null) ?? null;
  // A session is no licence to guess the password it was opened with: the same throttle as logins.
  const client = addressKey(ctx.remoteAddress);
  await rt.loginThrottle.check(client, String(existing.username));
  if (!(await rt.passwordChecks.run(() => rt.passwords.verify(body.currentPassword as string, stored)))) {
    await rt.loginThrottle.failed(client, String(existing.username), existing.identityId as string);
    throw invalidField('currentPassword', 'does not match the current password', '<redacted>');
  }
  await applyUpdate(rt, existing, body, ctx.now, ctx.principal!.apiSessionId);
  return { data: {} };
}
