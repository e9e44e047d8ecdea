// Client certificates issued by the controller's intermediate CA for enrolled identities, as OpenZiti's client
// signer makes them: the CSR's subject and key, one year, clientAuth, and the identity's SPIFFE id as a URI SAN.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { sha1FingerprintOfDer } from './fingerprint.js';
import { bits, oid, seq, tlv } from '../../protocol/der.js';
import { ApiError } from '../../protocol/errors.js';
import { CsrError, parseCsr, type ParsedCsr } from '../../protocol/csr.js';
import { buildCertificate, certificateParts, extension, EXTENSION_OIDS } from '../../protocol/x509.js';
import { withNewline, type Pki } from './pki.js';

/** Keys the controller certifies: RSA 2048 to 4096 bits, EC P-256 and P-384 (issue 9). */
export function checkKeyPolicy(key: KeyObject): void {
  const d = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'rsa') {
    const bitsLen = d.modulusLength ?? 0;
    if (bitsLen < 2048) throw new CsrError(`the CSR's RSA key has ${bitsLen} bits, fewer than the 2048 required`);
    if (bitsLen > 4096) throw new CsrError(`the CSR's RSA key has ${bitsLen} bits, more than the 4096 accepted`);
    return;
  }
  if (key.asymmetricKeyType === 'ec') {
    if (d.namedCurve === 'prime256v1' || d.namedCurve === 'secp384r1') return;
    throw new CsrError(`the CSR's EC key is on curve ${d.namedCurve ?? 'unknown'}; P-256 or P-384 is required`);
  }
  throw new CsrError(`the CSR's key is of type ${key.asymmetricKeyType}; RSA or EC is required`);
}

/**
 * Runs `step` (accepting a CSR, issuing from it): a CSR refusal becomes the 400 COULD_NOT_PROCESS_CSR naming the
 * body member that carried it (`field`, or the one it picks for the refusal); any other error passes unchanged.
 */
export function csrStep<T>(field: string | ((err: CsrError) => string), step: () => T): T {
  try {
    return step();
  } catch (err) {
    if (!(err instanceof CsrError)) throw err;
    const member = typeof field === 'string' ? field : field(err);
    throw new ApiError('COULD_NOT_PROCESS_CSR', {
      message: `the CSR could not be processed: ${err.message}`,
      cause: { field: member, reason: err.message, value: '<csr>' },
    });
  }
}

/** Parses, verifies and checks the key of a CSR: everything that can be refused before any state changes. */
export function acceptCsr(pem: string): ParsedCsr {
  const csr = parseCsr(pem);
  checkKeyPolicy(csr.publicKey);
  return csr;
}

const MINUTE = 60_000;

/** The SPIFFE id OpenZiti gives an identity's enrollment certificate: `spiffe://<trust domain>/identity/<id>`. */
export function identitySpiffeId(trustDomain: string, identityId: string): string {
  return `spiffe://${trustDomain}/identity/${encodeURIComponent(identityId)}`;
}

const issuers = new WeakMap<
  Pki,
  { certPem: string; keyPem: string; parts: ReturnType<typeof certificateParts> & { notAfter: Date; key: KeyObject } }
>();

/**
 * What issuing needs of the intermediate: its subject (as encoded), key identifier, expiry and key. Parsed once per
 * PKI (every enrollment, extension and session certificate issues from it); an entry is reused only while the PKI
 * still holds the same intermediate.
 */
function issuerParts(pki: Pki) {
  const cached = issuers.get(pki);
  if (cached && cached.certPem === pki.intermediateCertPem && cached.keyPem === pki.intermediateKeyPem)
    return cached.parts;
  const parts = {
    ...certificateParts(pki.intermediateCertPem),
    notAfter: new Date(new X509Certificate(pki.intermediateCertPem).validTo),
    key: createPrivateKey(pki.intermediateKeyPem),
  };
  issuers.set(pki, { certPem: pki.intermediateCertPem, keyPem: pki.intermediateKeyPem, parts });
  return parts;
}

export interface IssuedCert {
  /** The leaf followed by the intermediate: what `/enroll/ott` returns as `cert` (no root, as OpenZiti). */
  chainPem: string;
  leafPem: string;
  /** Lowercase hex SHA-1 of the leaf DER: the cert authenticator's fingerprint. */
  fingerprint: string;
}

/** Signs a certificate for an accepted CSR from the intermediate CA, with the given extensions. */
export function issueCert(
  pki: Pki,
  csr: ParsedCsr,
  opts: { extensions: Buffer[]; now: Date; validityDays?: number; validityMs?: number },
): IssuedCert {
  const issuer = issuerParts(pki);
  const notBefore = new Date(opts.now.getTime() - MINUTE);
  const wanted = new Date(opts.now.getTime());
  if (opts.validityMs !== undefined) wanted.setTime(wanted.getTime() + opts.validityMs);
  else wanted.setUTCDate(wanted.getUTCDate() + (opts.validityDays ?? 365));
  // Never beyond the issuer: a chain that expires before its leaf is refused by every verifier.
  const notAfter = new Date(Math.min(wanted.getTime(), issuer.notAfter.getTime()));
  const { der, pem: leafPem } = buildCertificate({
    issuer,
    subjectDer: csr.subjectDer,
    spkiDer: csr.spkiDer,
    notBefore,
    notAfter,
    extensions: opts.extensions,
  });
  return { leafPem, chainPem: leafPem + withNewline(pki.intermediateCertPem), fingerprint: sha1FingerprintOfDer(der) };
}

/** The subjectAltName extension of already encoded GeneralName elements (none: no extension). */
export function subjectAltNames(names: readonly Buffer[]): Buffer[] {
  return names.length > 0 ? [extension(EXTENSION_OIDS.subjectAltName, false, seq(...names))] : [];
}

/** Signs a client certificate for an accepted CSR. */
export function issueClientCert(
  pki: Pki,
  csr: ParsedCsr,
  opts: { uris: string[]; now: Date; validityDays?: number; validityMs?: number },
): IssuedCert {
  return issueCert(pki, csr, {
    now: opts.now,
    validityDays: opts.validityDays,
    validityMs: opts.validityMs,
    extensions: [
      extension(EXTENSION_OIDS.basicConstraints, true, seq()),
      // digitalSignature, keyEncipherment, dataEncipherment (bits 0, 2, 3), as OpenZiti's client signer.
      extension(EXTENSION_OIDS.keyUsage, true, bits(Buffer.from([0b1011_0000]), 4)),
      extension(EXTENSION_OIDS.extKeyUsage, false, seq(oid(EXTENSION_OIDS.clientAuth))),
      // uniformResourceIdentifier is [6] IMPLICIT IA5String.
      ...subjectAltNames(opts.uris.map((u) => tlv(0x86, Buffer.from(u, 'ascii')))),
    ],
  });
}
