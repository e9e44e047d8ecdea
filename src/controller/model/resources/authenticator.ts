import { X509Certificate } from 'node:crypto';
import { ApiError, invalidField, notFound } from '../../../protocol/errors.js';
import { sha1FingerprintHex } from '../../pki/fingerprint.js';
import { acceptCsr, csrStep, identitySpiffeId, issueClientCert } from '../../pki/issue.js';
import { resource } from '../../../resources/index.js';
import type { Runtime } from '../../runtime.js';
import type { Principal } from '../../server/types.js';
import type { Row } from '../../store/repository.js';
import { checkPasswordRules } from '../auth/auth-policy-rules.js';

const authenticator = resource('authenticator');

/** Who extends a certificate: the identity, and the authenticator its session was opened with. */
type Extender = Pick<Principal, 'identityId' | 'authenticatorId'>;

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

/** The caller's own cert authenticator (`id`) that this controller issued, and that its session was opened with. */
export async function extendableBy(rt: Runtime, id: string, caller: Extender): Promise<Row> {
  const row = await rt.store.repo('authenticator').find(id);
  if (!row || row.identityId !== caller.identityId) throw notFound('authenticator', id);
  if (row.method !== 'cert' || row.isIssuedByNetwork !== true) {
    throw new ApiError('CAN_NOT_UPDATE_AUTHENTICATOR', {
      message: 'only certificates this controller issued can be extended',
    });
  }
  if (caller.authenticatorId !== row.id) {
    throw new ApiError('UNAUTHORIZED', {
      message: 'a certificate is extended from a session opened with that certificate',
    });
  }
  return row;
}

/**
 * Certificate extension by the identity itself (the states table's "client certificate" rows): a CSR made with the
 * session's certificate brings a new certificate, kept pending; the old one keeps working until the identity proves
 * it received the new one (verifyExtension). Answers the new certificate and the CA bundle.
 */
export async function extendCertificate(
  rt: Runtime,
  row: Row,
  csrPem: string | undefined,
  at: Date,
): Promise<{ ca: string; clientCert: string }> {
  if (!csrPem)
    throw new ApiError('COULD_NOT_PROCESS_CSR', {
      message: 'clientCertCsr is required',
      cause: { field: 'clientCertCsr', reason: 'is required', value: '' },
    });
  const issued = csrStep('clientCertCsr', () =>
    issueClientCert(rt.pki, acceptCsr(csrPem), {
      uris: [identitySpiffeId(rt.pki.trustDomain, row.identityId as string)],
      now: at,
    }),
  );
  await rt.writes.update(
    'authenticator',
    row,
    { pendingCertPem: issued.chainPem, pendingFingerprint: issued.fingerprint },
    at.toISOString(),
  );
  return { ca: rt.pki.caBundlePem, clientCert: issued.chainPem };
}

/** The holder shows the pending certificate (`clientCert`, PEM), which then replaces the old one. */
export async function verifyExtension(rt: Runtime, row: Row, clientCert: string | undefined, at: Date): Promise<void> {
  if (!row.pendingFingerprint)
    throw new ApiError('INVALID_CLIENT_CERT', { message: 'no extended certificate awaits verification: extend first' });
  let fingerprint: string | undefined;
  try {
    fingerprint = clientCert ? sha1FingerprintHex(clientCert) : undefined;
  } catch {
    fingerprint = undefined;
  }
  if (fingerprint !== row.pendingFingerprint)
    throw new ApiError('INVALID_CLIENT_CERT', { message: 'clientCert is not the certificate the extension issued' });
  // Whether the holder made a new key (what request-extend's rollKeys asks for): the two certificates' keys differ.
  const spki = (pem: string) => new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
  const rolledKeys = !spki(row.certPem as string).equals(spki(row.pendingCertPem as string));
  await rt.writes.update(
    'authenticator',
    row,
    // The extension asked for (request-extend) has happened: the request is answered.
    {
      certPem: row.pendingCertPem,
      fingerprint: row.pendingFingerprint,
      pendingCertPem: null,
      pendingFingerprint: null,
      isExtendRequested: false,
      isKeyRollRequested: false,
      extendRequestedAt: null,
      lastExtendRolledKeys: rolledKeys,
    },
    at.toISOString(),
  );
}

/**
 * An administrator flags a certificate authenticator for early extension, and optionally a new key (`rollKeys`).
 * The holder learns of it from its API session (isCertExtendRequested, isCertKeyRollRequested) and from its
 * authenticator; clients that cannot extend may ignore it. Only certificates can be extended (403).
 */
export async function requestExtension(rt: Runtime, row: Row, rollKeys: boolean, at: Date): Promise<void> {
  if (row.method !== 'cert')
    throw new ApiError('FORBIDDEN', {
      message: `authenticator ${row.id} is not a certificate authenticator: only certificates can be extended`,
    });
  await rt.writes.update(
    'authenticator',
    row,
    { isExtendRequested: true, isKeyRollRequested: rollKeys, extendRequestedAt: at.toISOString() },
    at.toISOString(),
  );
}
