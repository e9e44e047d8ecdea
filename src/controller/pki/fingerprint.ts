// Certificate fingerprints in the two forms OpenZiti uses.
import { createHash, X509Certificate } from 'node:crypto';

// The SHA-256 form is also needed by the CLI, so it lives in the shared protocol module.
export { sha256Fingerprint } from '../../protocol/pkcs7.js';

/** Lowercase hex SHA-1 of the DER: OpenZiti's JWT `kid` and cert-authenticator fingerprint. */
export function sha1FingerprintHex(certPem: string): string {
  // X509Certificate parses only the first certificate of a bundle, so a chain PEM yields the leaf's fingerprint.
  return sha1FingerprintOfDer(new X509Certificate(certPem).raw);
}

/** The same fingerprint of a certificate already in DER (a TLS peer's, one just issued). */
export function sha1FingerprintOfDer(der: Buffer): string {
  return createHash('sha1').update(der).digest('hex');
}
