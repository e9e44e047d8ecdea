// What an identity's auth policy demands, in one place: the primary methods it allows, the password rules, and the
// lockout after `maxAttempts` failed passwords. Used by authentication, by the writes that set passwords (updb
// authenticators, updb enrollment) and by the secondary ext-JWT check.
import { invalidField } from '../../../protocol/errors.js';
import type { Runtime } from '../../runtime.js';
import { isDisabled } from '../../auth/identity-state.js';
import type { Row } from '../../store/repository.js';

export interface UpdbRules {
  allowed: boolean;
  minPasswordLength: number;
  requireSpecialChar: boolean;
  requireNumberChar: boolean;
  requireMixedCase: boolean;
  maxAttempts: number;
  lockoutDurationMinutes: number;
}

export interface AuthPolicyShape {
  primary: {
    cert: { allowed: boolean; allowExpiredCerts: boolean };
    updb: UpdbRules;
    extJwt: { allowed: boolean; allowedSigners: string[] };
  };
  secondary: { requireTotp: boolean; requireExtJwtSigner: string | null };
}

/**
 * Who is logging in and the auth policy they are under: each login method reads the policy once, and every later
 * step of the login (MFA required, a secondary token owed) is given it rather than reading it again.
 */
export interface LoginSubject {
  identity: Row;
  policy: AuthPolicyShape | undefined;
}

/** The policy an identity is under; an identity without one (never: the reference is required) is under `default`. */
export async function policyOfIdentity(rt: Runtime, identity: Row): Promise<AuthPolicyShape | undefined> {
  const row = await rt.store
    .repo('auth-policy')
    .find(((identity.authPolicyId as string | null) ?? 'default') || 'default');
  return row as unknown as AuthPolicyShape | undefined;
}

/** The first password rule `password` breaks, as a sentence naming the rule; undefined when it keeps them all. */
export function passwordRuleBroken(rules: UpdbRules, password: string): string | undefined {
  const chars = [...password];
  if (chars.length < rules.minPasswordLength)
    return `must be at least ${rules.minPasswordLength} characters long (minPasswordLength of the auth policy)`;
  if (rules.requireNumberChar && !/\p{Nd}/u.test(password))
    return 'must contain a digit (requireNumberChar of the auth policy)';
  if (rules.requireSpecialChar && !/[^\p{L}\p{Nd}\s]/u.test(password))
    return 'must contain a special character, neither letter nor digit (requireSpecialChar of the auth policy)';
  if (rules.requireMixedCase && !(/\p{Lu}/u.test(password) && /\p{Ll}/u.test(password)))
    return 'must mix upper and lower case letters (requireMixedCase of the auth policy)';
  return undefined;
}

/** Refuses (400 on `field`) a password the identity's auth policy does not accept. */
export async function checkPasswordRules(
  rt: Runtime,
  identityId: string,
  password: string,
  field = 'password',
): Promise<void> {
  const identity = await rt.store.repo('identity').find(identityId);
  const policy = identity ? await policyOfIdentity(rt, identity) : undefined;
  if (!policy) return;
  const broken = passwordRuleBroken(policy.primary.updb, password);
  if (broken) throw invalidField(field, `the password ${broken}`, '<redacted>');
}

/**
 * A failed password of a known identity: counted on the login throttle, and when the policy's `maxAttempts` is
 * reached the identity is disabled for `lockoutDurationMinutes` (0: until an administrator enables it), as OpenZiti
 * does. The lockout is a timed disable, so it outlives a restart, shows on the identity, and ends by itself; the
 * count starts again from zero.
 */
export async function lockoutAfterFailure(rt: Runtime, identityId: string, now: Date): Promise<void> {
  const identity = await rt.store.repo('identity').find(identityId);
  // Failures while locked out neither count nor lengthen the lockout: it ends when it said it would.
  if (!identity || isDisabled(identity, now)) {
    await rt.loginThrottle.succeeded(identityId);
    return;
  }
  const policy = await policyOfIdentity(rt, identity);
  const max = policy?.primary.updb.maxAttempts ?? 0;
  if (max <= 0) return;
  const failures = await rt.loginThrottle.failuresOf(identity.id);
  if (!failures || failures.consecutive < max) return;
  const minutes = policy!.primary.updb.lockoutDurationMinutes;
  const disabledUntil = minutes > 0 ? new Date(now.getTime() + minutes * 60_000).toISOString() : null;
  // Not an administrator's change: updatedAt stays; the identity's sessions stop at the next request (disabled).
  await rt.writes.update('identity', identity, { disabledAt: now.toISOString(), disabledUntil }, identity.updatedAt);
  await rt.loginThrottle.succeeded(identity.id);
  rt.log(
    `identity ${identity.id} locked out after ${failures.consecutive} ` +
      `failed passwords${disabledUntil ? ` until ${disabledUntil}` : ''}`,
  );
}
