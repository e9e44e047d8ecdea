import { ApiError, invalidField } from '../../../protocol/errors.js';
import { resource } from '../../../resources/index.js';
import type { Runtime } from '../../runtime.js';
import type { Row } from '../../store/repository.js';
import { checkPasswordRules } from '../auth/auth-policy-rules.js';

const authenticator = resource('authenticator');

/** A updb authenticator for an identity that has none, from a validated create body; answers its id. */
export async function createUpdbAuthenticator(rt: Runtime, body: Record<string, unknown>, at: Date): Promise<string> {
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
  return rt.writes
    .insert(authenticator.name, { ...body, password: hash }, { now: at.toISOString() })
    .catch((err: unknown) => {
      throw err instanceof ApiError && (err.cause as { field?: string } | undefined)?.field === 'identityId'
        ? oneMore()
        : err;
    });
}

/**
 * Changes username and/or password of a updb authenticator; a password is stored only as its hash. A new password
 * ends the identity's other sessions: whoever knew the old one is logged out (`keep` is spared).
 */
export async function updateUpdbAuthenticator(
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

/** A credential that goes takes its identity's sessions with it (all but `keep`, the caller's own). */
export async function deleteAuthenticator(rt: Runtime, existing: Row, keep?: string): Promise<void> {
  await rt.store.tx(async () => {
    await rt.writes.delete(authenticator.name, existing);
    await rt.apiSessions.deleteForIdentity(existing.identityId as string, keep);
  });
}

/**
 * The holder's own change of its updb authenticator, proved by its current password (`body.currentPassword`),
 * whose wrong guesses from `client` count as failed logins; the holder's session (`keep`) stays.
 */
export async function updateOwnAuthenticator(
  rt: Runtime,
  existing: Row,
  body: Record<string, unknown>,
  { client, keep, at }: { client: string; keep: string; at: Date },
): Promise<void> {
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
  await rt.loginThrottle.check(client, String(existing.username));
  if (!(await rt.passwordChecks.run(() => rt.passwords.verify(body.currentPassword as string, stored)))) {
    await rt.loginThrottle.failed(client, String(existing.username), existing.identityId as string);
    throw invalidField('currentPassword', 'does not match the current password', '<redacted>');
  }
  await updateUpdbAuthenticator(rt, existing, body, at, keep);
}
