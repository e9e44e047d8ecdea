// Logging in: a username and password checked (the same 401 for every failure, after the same work), and the API
// session an authenticated identity opens. Certificate and ext-JWT logins find their subject in cert-login.ts and
// ext-jwt.ts and open the session here too.
import { isDeepStrictEqual } from 'node:util';
import { ApiError } from '../../../protocol/errors.js';
import { isDisabled } from '../../auth/identity-state.js';
import type { Runtime } from '../../runtime.js';
import { lockoutAfterFailure, type LoginSubject, policyOfIdentity } from './auth-policy-rules.js';
import { totpRequired } from './mfa.js';

const INVALID_AUTH = () => new ApiError('INVALID_AUTH');

/**
 * `method=password`. Unknown user, wrong password, disabled identity and a policy that forbids passwords all answer
 * the same 401 INVALID_AUTH, after the same hashing work, so nothing leaks. Failures count against `client` (the
 * caller's address) and the username, and toward the identity's lockout.
 */
export async function passwordLogin(
  rt: Runtime,
  { username, password }: { username: string; password: string },
  client: string,
  now: Date,
): Promise<{ subject: LoginSubject; authenticatorId: string }> {
  const { store } = rt;
  await rt.loginThrottle.check(client, username);
  const credential = await store.repo('authenticator').findOne({ method: 'updb', username });
  const ok = await rt.passwordChecks.run(() =>
    rt.passwords.verify(password, credential?.password as string | undefined),
  );
  const identity = ok && credential ? await store.repo('identity').get(credential.identityId as string) : undefined;
  const policy = identity ? await policyOfIdentity(rt, identity) : undefined;
  if (!identity || !credential || isDisabled(identity, now) || policy?.primary.updb.allowed !== true) {
    await rt.loginThrottle.failed(client, username, credential?.identityId as string | undefined);
    if (!ok && credential) await lockoutAfterFailure(rt, credential.identityId as string, now);
    throw INVALID_AUTH();
  }
  await rt.loginThrottle.succeeded(identity.id);
  return { subject: { identity, policy }, authenticatorId: credential.id };
}

/**
 * Opens the API session of an authenticated identity and records what the client reports about itself (`reported`:
 * configTypes, envInfo, sdkInfo). The identity and its auth policy are what the login read: MFA is decided from them.
 */
export async function openApiSession(
  rt: Runtime,
  subject: LoginSubject,
  authenticatorId: string,
  { ipAddress, reported, now }: { ipAddress: string; reported: Record<string, unknown>; now: Date },
): Promise<{ id: string; token: string }> {
  const { identity } = subject;
  const mfaRequired = await totpRequired(rt, subject);
  return rt.store.tx(async () => {
    const session = await rt.apiSessions.create({
      mfaRequired,
      identityId: identity.id,
      authenticatorId,
      ipAddress,
      configTypes: (reported.configTypes as string[] | null) ?? [],
      now,
    });
    // Written only where it changed: SDKs report the same at every login, and a write of the identity makes every
    // controller drop the sessions it keeps (a session's identity may have changed).
    const info: Record<string, unknown> = {};
    for (const field of ['envInfo', 'sdkInfo'] as const) {
      const value = reported[field];
      if (value && !isDeepStrictEqual(value, identity[field])) info[field] = value;
    }
    // What the client reports about itself is not an admin's change: the identity's updatedAt stays.
    if (Object.keys(info).length > 0) await rt.writes.update('identity', identity, info, identity.updatedAt);
    return session;
  });
}
