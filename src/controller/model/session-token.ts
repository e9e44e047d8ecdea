import { createPrivateKey, type KeyObject } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { ApiError } from '../../protocol/errors.js';
import { sha1FingerprintHex } from '../pki/fingerprint.js';
import type { Pki } from '../pki/pki.js';
import type { Runtime } from '../runtime.js';
import type { Principal } from '../server/types.js';

/** The server key, parsed once per PKI (not once per session created), with its certificate's kid. */
const signingKeys = new WeakMap<Pki, { key: KeyObject; kid: string }>();

function signingKeyOf(pki: Pki): { key: KeyObject; kid: string } {
  let known = signingKeys.get(pki);
  if (!known) {
    known = { key: createPrivateKey(pki.serverKeyPem), kid: sha1FingerprintHex(pki.serverCertPem) };
    signingKeys.set(pki, known);
  }
  return known;
}

/**
 * The session token: a JWT signed with the controller's TLS server key (kid its SHA-1, as enrollment JWTs), with
 * OpenZiti's service-access claims (`z_t: "s"`, `z_st` the type, `jti` the session id, `z_leg` true: the session is a
 * stored one, as for every API session authenticated with `zt-session`). Edge routers and SDKs read it as OpenZiti's;
 * the year-long expiry is OpenZiti's too: the session really ends with its API session.
 */
export async function sessionToken(
  rt: Runtime,
  claims: { id: string; serviceId: string; apiSessionId: string; identityId: string; type: string },
  now: Date,
): Promise<string> {
  const { key, kid } = signingKeyOf(rt.pki);
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({
    z_asid: claims.apiSessionId,
    z_iid: claims.identityId,
    z_t: 's',
    z_st: claims.type,
    z_leg: true,
  })
    .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
    .setIssuer(rt.enrollmentSigner.issuer)
    .setSubject(claims.serviceId)
    .setAudience(['openziti'])
    .setJti(claims.id)
    .setIssuedAt(iat)
    .setExpirationTime(iat + 365 * 24 * 3600)
    .sign(key);
}

/**
 * A session token shown back (the `session-token` header of the service edge router list): it must be the token of
 * one of the caller's service sessions for this service (as `POST /sessions` issued it): signed by this controller,
 * of a session that still exists, was made in the caller's own API session (as OpenZiti's ValidateServiceAccessToken
 * requires: another API session of the same identity will not do) and is for this service; anything else is 401.
 */
export async function checkSessionToken(
  rt: Runtime,
  caller: Pick<Principal, 'identityId' | 'apiSessionId'>,
  token: string,
  serviceId: string,
): Promise<void> {
  const refuse = (why: string) =>
    new ApiError('UNAUTHORIZED', { message: `the session-token header is not a valid session token: ${why}` });
  if (!token) throw refuse('it is empty');
  let claims: Awaited<ReturnType<typeof jwtVerify>>['payload'];
  try {
    // Signed by this controller or by another on its database (an SDK may ask any of them): its key names it.
    const key = await rt.enrollmentSigner.keyOf(decodeProtectedHeader(token).kid ?? '');
    if (!key) throw new Error('it was not signed by a controller of this network');
    ({ payload: claims } = await jwtVerify(token, key, { algorithms: ['RS256'] }));
  } catch (err) {
    throw refuse((err as Error).message);
  }
  if (claims.z_t !== 's' || typeof claims.jti !== 'string') throw refuse('it is not a service session token');
  const row = await rt.store.repo('session').find(claims.jti);
  if (!row) throw refuse('its session has ended');
  if (row.identityId !== caller.identityId) throw refuse('its session belongs to another identity');
  if (row.apiSessionId !== caller.apiSessionId) throw refuse('its session belongs to another API session');
  if (row.serviceId !== serviceId) throw refuse('its session is for another service');
}
