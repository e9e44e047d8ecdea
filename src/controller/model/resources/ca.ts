// Third-party CAs (wire-protocol section 6): created unverified with a verification token, verified by a
// certificate the CA signed whose common name is that token, and their static enrollment JWT. An unverified CA is
// trusted for nothing.
import { X509Certificate } from 'node:crypto';
import { ApiError } from '../../../protocol/errors.js';
import { pemBlocks } from '../../../protocol/pem.js';
import { resource } from '../../../resources/index.js';
import { normalizeExternalIdClaim, storedClaim } from '../../pki/external-id.js';
import type { Row } from '../../store/repository.js';
import type { ResourceModel } from '../behaviour.js';
import { toWire } from '../present.js';

const ca = resource('ca');

/** The certificates of a PEM bundle; any block that is not a readable certificate is refused. */
export function pemCertificates(pem: string): X509Certificate[] {
  return pemBlocks(pem).map(({ label, base64 }) => {
    if (label !== 'CERTIFICATE')
      throw new ApiError('EXPECTED_PEM_CERTIFICATE', { message: `expected PEM CERTIFICATE blocks, found ${label}` });
    try {
      return new X509Certificate(Buffer.from(base64, 'base64'));
    } catch (err) {
      throw new ApiError('COULD_NOT_PARSE_DER_BLOCK', {
        message: `a certificate cannot be parsed: ${(err as Error).message}`,
      });
    }
  });
}

/** The common name of a certificate subject (node renders it one attribute per line). */
export function commonName(cert: X509Certificate): string | undefined {
  return cert.subject
    .split('\n')
    .find((line) => line.startsWith('CN='))
    ?.slice(3);
}

/**
 * A stored CA's certificates, parsed once per distinct PEM: certificate login asks every verified CA whether it
 * signed the presented certificate, on every login. Keyed by the PEM itself (never stale); emptied when it grows
 * past what any deployment's CA count needs, so deleted or edited CAs cannot pile up.
 */
const caCertsByPem = new Map<string, X509Certificate[]>();
const CA_CACHE_MAX = 1024;
function caCertificates(certPem: string): X509Certificate[] {
  let certs = caCertsByPem.get(certPem);
  if (!certs) {
    certs = pemCertificates(certPem);
    if (caCertsByPem.size >= CA_CACHE_MAX) caCertsByPem.clear();
    caCertsByPem.set(certPem, certs);
  }
  return certs;
}

/** Whether one of the CA's certificates signed `cert`. */
export function signedByCa(row: Row, cert: X509Certificate): boolean {
  return caCertificates(row.certPem as string).some(
    (issuer) => cert.checkIssued(issuer) && cert.verify(issuer.publicKey),
  );
}

/** A CA without a claim shows none (the column reads back as an empty object, which OpenZiti's schema refuses). */
function presentCas(rows: Row[]): Record<string, unknown>[] {
  return rows.map((row) => {
    const wire = toWire(ca, row);
    if (!storedClaim(wire.externalIdClaim)) delete wire.externalIdClaim;
    return wire;
  });
}

export const model: ResourceModel = {
  resource: 'ca',
  present: presentCas,
  hooks: {
    // A replace or patch that carries the claim has it checked and completed (a patch replaces it whole).
    async beforeWrite(_rt, write) {
      if (!('externalIdClaim' in write.values)) return;
      return { ...write.values, externalIdClaim: normalizeExternalIdClaim(write.values.externalIdClaim) };
    },
    // An ottca enrollment is worthless without its CA: they go with it, in the delete's transaction.
    async beforeDelete(rt, row) {
      await rt.writes.deleteWhere('enrollment', { caId: row.id });
    },
  },
};
