import { ApiError, invalidField } from '../../protocol/errors.js';
import { password, username } from '../../resources/common.js';
import { isDisabled } from '../auth/identity-state.js';
import { verifyPassword } from '../auth/password.js';
import { addressKey } from '../server/listener.js';
import type { Services } from '../services.js';
import { LOGIN_EXTRAS_SCHEMA } from '../server/limits.js';
import { typeSchema } from '../server/schemas.js';
import type { Ctx, Route } from '../server/types.js';
import { presentCurrentSession } from './current.js';

const PASSWORD_BODY = {
  type: 'object',
  properties: {
    username: typeSchema(username),
    password: typeSchema(password),
    ...LOGIN_EXTRAS_SCHEMA,
  },
  required: ['username', 'password'],
  additionalProperties: false,
};

const INVALID_AUTH = () => new ApiError('INVALID_AUTH');

interface Credential {
  authenticatorId: string;
  password: string | null;
  identityId: string;
  disabledAt: string | null;
  disabledUntil: string | null;
  policyPrimary: string;
}

export function authenticateRoutes(services: Services): Route[] {
  return [{ method: 'POST', path: '/authenticate', api: 'both', access: 'public', handler: (ctx) => authenticate(services, ctx) }];
}

/**
 * `POST /authenticate?method=password`. Unknown user, wrong password, disabled identity and a policy that
 * forbids passwords all answer the same 401 INVALID_AUTH, after the same hashing work, so nothing leaks.
 */
async function authenticate(services: Services, ctx: Ctx) {
  const method = ctx.query.get('method');
  if (method === null || method === '') throw invalidField('method', 'method in query is required (password, cert or ext-jwt)', '');
  if (method === 'cert' || method === 'ext-jwt') {
    throw new ApiError('INVALID_AUTH_METHOD', { message: `authentication method '${method}' is not supported by this controller yet; use method=password` });
  }
  if (method !== 'password') throw invalidField('method', 'method must be one of password, cert, ext-jwt', method);
  const body = services.validators.custom(PASSWORD_BODY, await ctx.json());
  const credential = services.store.db
    .prepare(
      `SELECT a."id" AS authenticatorId, a."password" AS password, i."id" AS identityId, i."disabledAt", i."disabledUntil", p."primary" AS policyPrimary
       FROM authenticators a JOIN identities i ON i."id" = a."identityId" JOIN auth_policies p ON p."id" = i."authPolicyId"
       WHERE a."method" = 'updb' AND a."username" = ?`,
    )
    .get(body.username) as Credential | undefined;
  const client = addressKey(ctx.remoteAddress);
  services.loginThrottle.check(client, body.username as string);
  const ok = await services.passwordChecks.run(() => verifyPassword(body.password as string, credential?.password));
  if (!ok || !credential || isDisabled(credential, ctx.now) || JSON.parse(credential.policyPrimary)?.updb?.allowed !== true) {
    services.loginThrottle.failed(client, body.username as string, credential?.identityId);
    throw INVALID_AUTH();
  }
  services.loginThrottle.succeeded(credential.identityId);

  const { id, token } = services.store.tx(() => {
    const session = services.sessions.create({
      identityId: credential.identityId,
      authenticatorId: credential.authenticatorId,
      ipAddress: ctx.remoteAddress,
      configTypes: (body.configTypes as string[] | null) ?? [],
      now: ctx.now,
    });
    if (body.envInfo || body.sdkInfo) {
      services.store
        .prepare(`UPDATE identities SET "envInfo" = coalesce(?, "envInfo"), "sdkInfo" = coalesce(?, "sdkInfo") WHERE "id" = ?`)
        .run(body.envInfo ? JSON.stringify(body.envInfo) : null, body.sdkInfo ? JSON.stringify(body.sdkInfo) : null, credential.identityId);
    }
    return session;
  });
  return { data: presentCurrentSession(services, id, token), headers: { 'zt-session': token } };
}
