import { ApiError, invalidField } from '../../../protocol/errors.js';
import { password, username } from '../../../resources/common.js';
import { lockoutAfterFailure, policyOfIdentity, type LoginSubject } from '../../model/auth/auth-policy-rules.js';
import { extJwtLogin, withExtJwtQueries } from '../../model/auth/ext-jwt.js';
import { isDisabled } from '../../auth/identity-state.js';
import { totpRequired } from '../../model/auth/mfa.js';
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

const INVALID_AUTH = () => new ApiError('INVALID_AUTH');

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

/**
 * `POST /authenticate?method=password`. Unknown user, wrong password, disabled identity and a policy that
 * forbids passwords all answer the same 401 INVALID_AUTH, after the same hashing work, so nothing leaks.
 */
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
  const { store } = rt;
  const client = addressKey(ctx.remoteAddress);
  await rt.loginThrottle.check(client, body.username as string);
  const credential = await store.repo('authenticator').findOne({ method: 'updb', username: body.username as string });
  const ok = await rt.passwordChecks.run(() =>
    rt.passwords.verify(body.password as string, credential?.password as string | undefined),
  );
  const identity = ok && credential ? await store.repo('identity').get(credential.identityId as string) : undefined;
  const policy = identity ? await policyOfIdentity(rt, identity) : undefined;
  if (!identity || !credential || isDisabled(identity, ctx.now) || policy?.primary.updb.allowed !== true) {
    await rt.loginThrottle.failed(client, body.username as string, credential?.identityId as string | undefined);
    if (!ok && credential) await lockoutAfterFailure(rt, credential.identityId as string, ctx.now);
    throw INVALID_AUTH();
  }
  await rt.loginThrottle.succeeded(identity.id);
  return startSession(rt, ctx, { identity, policy }, credential.id, body);
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
 * Opens the API session of an authenticated identity and records what the client reports about itself. The
 * identity and its auth policy are what the login read: MFA and a secondary token are decided from them.
 */
async function startSession(
  rt: Runtime,
  ctx: Ctx,
  subject: LoginSubject,
  authenticatorId: string,
  body: Record<string, unknown>,
) {
  const { store } = rt;
  const { identity } = subject;
  const mfaRequired = await totpRequired(rt, subject);
  const { id, token } = await store.tx(async () => {
    const session = await rt.apiSessions.create({
      mfaRequired,
      identityId: identity.id,
      authenticatorId,
      ipAddress: ctx.remoteAddress,
      configTypes: (body.configTypes as string[] | null) ?? [],
      now: ctx.now,
    });
    const info: Record<string, unknown> = {};
    if (body.envInfo) info.envInfo = body.envInfo;
    if (body.sdkInfo) info.sdkInfo = body.sdkInfo;
    // What the client reports about itself is not an admin's change: the identity's updatedAt stays.
    if (Object.keys(info).length > 0) await rt.writes.update('identity', identity, info, identity.updatedAt);
    return session;
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
