import { createPrivateKey, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { sha1FingerprintHex } from '../pki/fingerprint.js';
import type { Pki } from '../pki/pki.js';
import type { Runtime } from '../runtime.js';

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
