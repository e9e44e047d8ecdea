import { invalidField } from '../../../protocol/errors.js';
import { password, username } from '../../../resources/common.js';
import type { LoginSubject } from '../../model/auth/auth-policy-rules.js';
import { extJwtLogin, withExtJwtQueries } from '../../model/auth/ext-jwt.js';
import { openApiSession, passwordLogin } from '../../model/auth/login.js';
import type { Runtime } from '../../runtime.js';
import { addressKey } from '../../server/listener.js';
import { LOGIN_EXTRAS_SCHEMA } from '../../server/limits.js';
import { typeSchema } from '../../server/schemas.js';
import type { Ctx, Route } from '../../server/types.js';
import { resolveCertificate } from '../../model/auth/cert-login.js';
import { peerCertificate } from '../enrollment/peer-certificate.js';
import { presentCurrentSession } from '../../model/resources/api-session.js';
import { sessionWithToken } from './current.js';

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

const CERT_BODY = { type: 'object', properties: { ...LOGIN_EXTRAS_SCHEMA }, additionalProperties: false };

export function routes(rt: Runtime): Route[] {
  return [
    {
      method: 'POST',
      path: '/authenticate',
      api: 'both',
      access: 'public',
      responds: sessionWithToken,
      handler: (ctx) => authenticate(rt, ctx),
    },
  ];
}

/** `POST /authenticate?method=password|cert|ext-jwt`: the login of each method, then the API session it opens. */
async function authenticate(rt: Runtime, ctx: Ctx) {
  const method = ctx.query.get('method');
  if (method === null || method === '')
    throw invalidField('method', 'method in query is required (password, cert or ext-jwt)', '');
  if (method === 'cert') return certAuthenticate(rt, ctx);
  if (method === 'ext-jwt') {
    const { subject, authenticatorId, body } = await extJwtLogin(rt, ctx);
    return startSession(rt, ctx, subject, authenticatorId, body);
  }
  if (method !== 'password') throw invalidField('method', 'method must be one of password, cert, ext-jwt', method);
  const body = rt.validators.custom(PASSWORD_BODY, await ctx.json());
  const credentials = { username: body.username as string, password: body.password as string };
  const { subject, authenticatorId } = await passwordLogin(rt, credentials, addressKey(ctx.remoteAddress), ctx.now);
  return startSession(rt, ctx, subject, authenticatorId, body);
}

/**
 * `method=cert`: the TLS client certificate is the credential; the body (envInfo, sdkInfo, configTypes) is optional.
 */
async function certAuthenticate(rt: Runtime, ctx: Ctx) {
  const text = await ctx.text();
  const body = rt.validators.custom(CERT_BODY, text.trim() === '' ? {} : await ctx.json());
  const { subject, authenticator } = await resolveCertificate(rt, peerCertificate(ctx), ctx.now);
  return startSession(rt, ctx, subject, authenticator.id, body);
}

/**
 * Opens the API session of an authenticated identity (src/controller/model/auth/login.ts) and answers it, with the
 * secondary token its auth policy asks for.
 */
async function startSession(
  rt: Runtime,
  ctx: Ctx,
  subject: LoginSubject,
  authenticatorId: string,
  body: Record<string, unknown>,
) {
  const { identity } = subject;
  const { id, token } = await openApiSession(rt, subject, authenticatorId, {
    ipAddress: ctx.remoteAddress,
    reported: body,
    now: ctx.now,
  });
  const data = await withExtJwtQueries(
    rt,
    ctx,
    await presentCurrentSession(rt, id, token),
    { identityId: identity.id, token },
    subject,
  );
  return { data, headers: { 'zt-session': token } };
}
