// Redeeming an enrollment (wire-protocol section 6): the one-time token of an ott enrollment and a CSR become a
// certificate signed by the controller's intermediate CA and a cert authenticator; the token of a updb enrollment
// and a password become a updb authenticator. The enrollment goes in the same transaction, so a token is
// redeemed at most once, even by two requests racing with it.
import type { X509Certificate } from 'node:crypto';
import { ApiError } from '../../../protocol/errors.js';
import { externalIdOf, storedClaim } from '../../pki/external-id.js';
import { sha1FingerprintOfDer } from '../../pki/fingerprint.js';
import { acceptCsr, csrStep, identitySpiffeId, issueClientCert } from '../../pki/issue.js';
import type { Runtime } from '../../runtime.js';
import { newId, type Row } from '../../store/repository.js';
import { checkPasswordRules } from '../auth/auth-policy-rules.js';
import { commonName, signedByCa } from '../resources/ca.js';

/** The client certificate of the TLS connection: its bytes and parsed. */
export interface ClientCertificate {
  der: Buffer;
  cert: X509Certificate;
}

/**
 * The enrollment a token stands for, if it may be redeemed now: unknown (or already used) tokens and tokens of
 * another method are refused before anything is read from the body, expired ones after.
 */
export async function outstanding(rt: Runtime, token: string, method: string | undefined, now: Date): Promise<Row> {
  const found = await rt.store.repo('enrollment').findOne({ token });
  if (!found)
    throw new ApiError('INVALID_ENROLLMENT_TOKEN', {
      message: 'the enrollment token is unknown or has already been used',
    });
  if (method !== undefined && found.method !== method) {
    throw new ApiError('INVALID_ENROLL_METHOD', {
      message: `the token is for ${found.method} enrollment, not ${method}`,
    });
  }
  if (Date.parse(found.expiresAt as string) <= now.getTime()) {
    throw new ApiError('ENROLLMENT_EXPIRED', {
      message: `the enrollment expired at ${found.expiresAt}; an administrator can refresh it`,
    });
  }
  return found;
}

/** Removes the enrollment and adds the authenticator in one transaction; a token used meanwhile is refused. */
async function replaceWithAuthenticator(
  rt: Runtime,
  enrollment: Row,
  values: Record<string, unknown>,
  now: Date,
): Promise<void> {
  await rt.store.tx(async () => {
    const removed = await rt.writes.deleteWhere('enrollment', { id: enrollment.id, token: enrollment.token as string });
    if (removed !== 1)
      throw new ApiError('INVALID_ENROLLMENT_TOKEN', { message: 'the enrollment token has already been used' });
    try {
      await rt.writes.insert(
        'authenticator',
        { identityId: enrollment.identityId, ...values },
        { now: now.toISOString() },
      );
    } catch (err) {
      // The one-password-per-identity index: the identity got a updb authenticator some other way meanwhile.
      if (err instanceof ApiError && (err.cause as { field?: string } | undefined)?.field === 'identityId') {
        throw new ApiError('MAX_AUTHENTICATOR_METHODS_REACHED', {
          message: 'the identity already has a username and password',
        });
      }
      throw err;
    }
  });
}

/** ott: a certificate for the CSR becomes the identity's; answers it (the client chain) and the CA bundle. */
export async function redeemOtt(
  rt: Runtime,
  enrollment: Row,
  clientCsr: string | undefined,
  now: Date,
): Promise<{ cert: string; ca: string }> {
  if (clientCsr === undefined || clientCsr.trim() === '') {
    throw new ApiError('COULD_NOT_PROCESS_CSR', {
      message: 'no CSR was given: send a PEM certificate signing request',
      cause: { field: 'clientCsr', reason: 'is required', value: '' },
    });
  }
  const issued = csrStep('clientCsr', () =>
    issueClientCert(rt.pki, acceptCsr(clientCsr), {
      uris: [identitySpiffeId(rt.pki.trustDomain, enrollment.identityId as string)],
      now: now,
    }),
  );
  await replaceWithAuthenticator(
    rt,
    enrollment,
    { method: 'cert', certPem: issued.chainPem, fingerprint: issued.fingerprint, isIssuedByNetwork: true },
    now,
  );
  // `cert` is the client chain without the root (as OpenZiti); `ca` the bundle to trust the controller with.
  return { cert: issued.chainPem, ca: rt.pki.caBundlePem };
}

/**
 * ottca: the identity already exists and its enrollment names a CA; the client presents (on this TLS connection) a
 * certificate that CA issued, which becomes the identity's cert authenticator. The CA must be verified and allow
 * ottca enrollment; a certificate some authenticator already has is refused.
 */
export async function redeemOttca(
  rt: Runtime,
  enrollment: Row,
  { der, cert }: ClientCertificate,
  now: Date,
): Promise<void> {
  const ca = enrollment.caId ? await rt.store.repo('ca').find(enrollment.caId as string) : undefined;
  if (ca?.isVerified !== true || ca.isOttCaEnrollmentEnabled !== true) {
    throw new ApiError('ENROLLMENT_CA_NOT_VALID', {
      message: "the enrollment's CA is missing, unverified, or does not allow ottca enrollment",
    });
  }
  if (!signedByCa(ca, cert))
    throw new ApiError('ENROLLMENT_CA_NOT_VALID', {
      message: "the client certificate was not issued by the enrollment's CA",
    });
  const fingerprint = sha1FingerprintOfDer(der);
  if (await rt.store.repo('authenticator').exists({ method: 'cert', fingerprint })) throw new ApiError('CERT_IN_USE');
  await replaceWithAuthenticator(
    rt,
    enrollment,
    { method: 'cert', certPem: cert.toString(), fingerprint, isIssuedByNetwork: false },
    now,
  );
}

/**
 * CA auto enrollment (`POST /enroll/ca`): no prior identity and no token. A certificate of a verified CA that allows
 * auto enrollment creates an identity named by the CA's `identityNameFormat`, with the CA's `identityRoles`, whose
 * cert authenticator is that certificate. A certificate already enrolled is 409. A CA with an externalIdClaim
 * instead gives the identity the externalId the certificate names and no authenticator (its certificates log it in
 * by that id, as OpenZiti); a certificate naming none is 400 MISSING_CERT_CLAIM, an id taken 409.
 */
export async function enrollByCa(
  rt: Runtime,
  { der, cert }: ClientCertificate,
  requestedName: string | undefined,
  at: Date,
): Promise<void> {
  const cas = await rt.store.repo('ca').findAll({ isVerified: true, isAutoCaEnrollmentEnabled: true });
  const ca = cas.find((c) => signedByCa(c, cert));
  if (!ca)
    throw new ApiError('ENROLLMENT_NO_VALID_CAS', {
      message: 'no verified CA that allows auto enrollment issued the client certificate',
    });
  const fingerprint = sha1FingerprintOfDer(der);
  if (await rt.store.repo('authenticator').exists({ method: 'cert', fingerprint }))
    throw new ApiError('ENROLLMENT_IDENTITY_ALREADY_ENROLLED');
  const claim = storedClaim(ca.externalIdClaim);
  const externalId = claim ? externalIdOf(claim, der) : undefined;
  if (claim && externalId === undefined)
    throw new ApiError('MISSING_CERT_CLAIM', {
      message: "the client certificate carries no externalId by its CA's externalIdClaim",
    });
  if (externalId !== undefined && (await rt.store.repo('identity').exists({ externalId }))) {
    throw new ApiError('ENROLLMENT_IDENTITY_ALREADY_ENROLLED', {
      message: `an identity with the externalId the certificate names (${externalId}) exists already`,
    });
  }
  const identityId = newId();
  const cn = commonName(cert) ?? '';
  const format = (ca.identityNameFormat as string | null) ?? '[caName]-[commonName]';
  const symbols: Record<string, string> = {
    caName: ca.name as string,
    caId: ca.id,
    commonName: cn,
    requestedName: requestedName ?? '',
    identityId,
  };
  const base =
    format
      .replace(/\[(caName|caId|commonName|requestedName|identityId)\]/g, (_, key: string) => symbols[key])
      .slice(0, 1000) || identityId;
  const now = at.toISOString();
  await rt.store.tx(async () => {
    // Names are unique: a taken one gets a number, as two devices of one CA may share a common name.
    let name = base;
    for (let n = 2; await rt.store.repo('identity').exists({ name }); n++) name = `${base}-${n}`;
    const roleAttributes = (ca.identityRoles as string[]) ?? [];
    const values = {
      name,
      type: 'Default',
      isAdmin: false,
      roleAttributes,
      ...(externalId !== undefined ? { externalId } : {}),
    };
    await rt.writes.insert('identity', values, { id: identityId, now });
    const certificate = { identityId, method: 'cert', certPem: cert.toString(), fingerprint, isIssuedByNetwork: false };
    if (externalId === undefined) await rt.writes.insert('authenticator', certificate, { now });
  });
}

/** updb: the password (checked against the identity's auth policy) and the enrollment's username; answers it. */
export async function redeemUpdb(
  rt: Runtime,
  enrollment: Row,
  password: string,
  now: Date,
): Promise<{ username: unknown }> {
  await checkPasswordRules(rt, enrollment.identityId as string, password);
  const hash = await rt.passwordChecks.run(() => rt.passwords.hash(password));
  // The username is the one the enrollment was made for: the enrolling client chooses only the password.
  await replaceWithAuthenticator(
    rt,
    enrollment,
    { method: 'updb', username: enrollment.username, password: hash },
    now,
  );
  return { username: enrollment.username };
}
