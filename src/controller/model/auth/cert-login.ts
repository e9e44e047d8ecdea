// Certificate login (`POST /authenticate?method=cert`): the client certificate of the TLS connection logs in the
// identity whose cert authenticator has its fingerprint, or, for a verified CA with an externalIdClaim, the identity
// with the externalId the certificate names. The TLS handshake has proved the client holds the certificate's key;
// here the certificate must be one this controller's CA (or a trusted CA) issued, be known, and be allowed by the
// identity's auth policy.
import { X509Certificate } from 'node:crypto';
import { sha1FingerprintOfDer } from '../../pki/fingerprint.js';
import { ApiError } from '../../../protocol/errors.js';
import { isDisabled } from '../../auth/identity-state.js';
import { policyOfIdentity, type LoginSubject } from './auth-policy-rules.js';
import type { Runtime } from '../../runtime.js';
import type { Row } from '../../store/repository.js';
import { signedByCa } from '../resources/ca.js';
import { issuedByThisPki } from '../../pki/pki.js';
import { externalIdOf, storedClaim } from '../../pki/external-id.js';

const INVALID_AUTH = (why: string) =>
  new ApiError('INVALID_AUTH', { message: `The authentication request failed: ${why}` });

/** The verified third-party CA that allows authentication and issued it, if any (an unverified CA is never trusted). */
async function trustedCaOf(rt: Runtime, leaf: X509Certificate): Promise<Row | undefined> {
  const cas = await rt.store
    .repo('ca')
    .findAll({ isVerified: true, isAuthEnabled: true }, { columns: ['certPem', 'externalIdClaim'] });
  return cas.find((ca) => signedByCa(ca, leaf));
}

/** What a session opened by an externalIdClaim records as its authenticator (as OpenZiti's internal one). */
const EXTERNAL_ID_AUTHENTICATOR_ID = 'internal-cert-external-id';

/**
 * The identity and authenticator a certificate names by its CA's externalIdClaim. The identity has no
 * authenticator row for it (the CA's certificates are the credential), so the certificate cannot be extended
 * (only ours can).
 */
async function byExternalId(
  rt: Runtime,
  ca: Row,
  der: Buffer,
): Promise<{ identity: Row; authenticator: Row } | undefined> {
  const claim = storedClaim(ca.externalIdClaim);
  const externalId = claim ? externalIdOf(claim, der) : undefined;
  if (externalId === undefined) return undefined;
  const identity = await rt.store.repo('identity').findOne({ externalId });
  if (!identity)
    throw INVALID_AUTH(`no identity has the externalId the certificate names (by the CA's externalIdClaim)`);
  const fingerprint = sha1FingerprintOfDer(der);
  return {
    identity,
    authenticator: {
      id: EXTERNAL_ID_AUTHENTICATOR_ID,
      identityId: identity.id,
      method: 'cert',
      fingerprint,
      isIssuedByNetwork: false,
    } as unknown as Row,
  };
}

/**
 * The identity and cert authenticator a presented certificate stands for. Every refusal is the same 401
 * INVALID_AUTH (with the reason in the message: the certificate is the caller's own, nothing leaks).
 */
export async function resolveCertificate(
  rt: Runtime,
  der: Buffer | undefined,
  now: Date,
): Promise<{ subject: LoginSubject; authenticator: Row }> {
  if (!der) throw INVALID_AUTH('no client certificate was presented on the TLS connection');
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(der);
  } catch {
    throw INVALID_AUTH('the client certificate cannot be read');
  }
  // Ours: the current intermediate or one it replaced (certificates issued before a rotation stay valid).
  const ours = issuedByThisPki(rt.pki, leaf);
  const ca = ours ? undefined : await trustedCaOf(rt, leaf);
  if (!ours && !ca) {
    throw INVALID_AUTH(
      'the client certificate was issued neither by this controller nor by a verified CA that allows authentication',
    );
  }
  // A CA with an externalIdClaim names the identity in its certificates; one that names none (or a CA without a
  // claim) falls back to the certificate's own authenticator, found by fingerprint.
  const named = ca ? await byExternalId(rt, ca, der) : undefined;
  const { identity, authenticator } = named ?? (await byFingerprint(rt, der));
  const policy = await policyOfIdentity(rt, identity);
  const cert = policy?.primary.cert;
  if (cert?.allowed !== true) throw INVALID_AUTH("the identity's auth policy does not allow certificates");
  const expired = Date.parse(leaf.validTo) < now.getTime() || Date.parse(leaf.validFrom) > now.getTime();
  if (expired && cert.allowExpiredCerts !== true)
    throw INVALID_AUTH(
      "the client certificate is outside its validity and the identity's auth policy requires a valid one",
    );
  if (isDisabled(identity, now)) throw INVALID_AUTH('the identity is disabled');
  return { subject: { identity, policy }, authenticator };
}

async function byFingerprint(rt: Runtime, der: Buffer): Promise<{ identity: Row; authenticator: Row }> {
  const fingerprint = sha1FingerprintOfDer(der);
  const authenticator = await rt.store.repo('authenticator').findOne({ method: 'cert', fingerprint });
  if (!authenticator) throw INVALID_AUTH('the client certificate belongs to no identity');
  return { identity: await rt.store.repo('identity').get(authenticator.identityId as string), authenticator };
}
