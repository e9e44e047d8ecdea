import { notFound } from '../../../protocol/errors.js';
import { password as passwordType, username as usernameType } from '../../../resources/common.js';
import { resource } from '../../../resources/index.js';
import type { Runtime } from '../../runtime.js';
import { addressKey } from '../../server/listener.js';
import { TAGS_SCHEMA, typeSchema } from '../../server/schemas.js';
import type { Ctx, Route } from '../../server/types.js';
import type { Row } from '../../store/repository.js';
import {
  createUpdbAuthenticator,
  deleteAuthenticator,
  updateOwnAuthenticator,
  updateUpdbAuthenticator,
} from '../../model/resources/authenticator.js';
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
  return created(authenticator, await createUpdbAuthenticator(rt, body, ctx.now));
}

async function adminUpdate(rt: Runtime, ctx: Ctx, verb: 'replace' | 'patch') {
  const existing = await rt.store.repoFor(authenticator).get(ctx.params.id);
  const body = await validBody(rt, authenticator, verb, ctx, existing);
  await updateUpdbAuthenticator(rt, existing, body, ctx.now, ctx.principal?.apiSessionId);
  return { data: {} };
}

async function adminDelete(rt: Runtime, ctx: Ctx) {
  const existing = await rt.store.repoFor(authenticator).get(ctx.params.id);
  await deleteAuthenticator(rt, existing, ctx.principal?.apiSessionId);
  return { data: {} };
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
  const at = { client: addressKey(ctx.remoteAddress), keep: ctx.principal!.apiSessionId, at: ctx.now };
  await updateOwnAuthenticator(rt, existing, body, at);
  return { data: {} };
}
