// Third-party CAs (wire-protocol section 6): created unverified with a verification token, verified by a
// certificate the CA signed whose common name is that token, and their static enrollment JWT. An unverified CA is
// trusted for nothing.
import { randomUUID, X509Certificate } from 'node:crypto';
import { ApiError } from '../../../protocol/errors.js';
import { pemBlocks } from '../../../protocol/pem.js';
import { resource } from '../../../resources/index.js';
import { normalizeExternalIdClaim, storedClaim } from '../../pki/external-id.js';
import { sha1FingerprintOfDer } from '../../pki/fingerprint.js';
import type { Runtime } from '../../runtime.js';
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

/** Registers a CA from a validated create body, unverified, with its verification token; answers its id. */
export async function registerCa(rt: Runtime, body: Record<string, unknown>, at: Date): Promise<string> {
  const certPem = body.certPem as string;
  const certs = pemCertificates(certPem);
  if (certs.length === 0)
    throw new ApiError('INVALID_CERT_PEM', {
      message: 'certPem holds no PEM certificate',
      cause: { field: 'certPem', reason: 'no PEM certificate', value: '<pem>' },
    });
  const notCa = certs.find((c) => !c.ca);
  if (notCa)
    throw new ApiError('CERTIFICATE_IS_NOT_CA', {
      message: `${notCa.subject.replace(/\n/g, ', ')} is not a CA certificate (basicConstraints CA:TRUE)`,
    });
  const fingerprint = sha1FingerprintOfDer(certs[0].raw);
  const values = {
    ...body,
    certPem,
    fingerprint,
    isVerified: false,
    verificationToken: randomUUID(),
    externalIdClaim: normalizeExternalIdClaim(body.externalIdClaim),
  };
  return rt.writes.insert(ca.name, values, { now: at.toISOString() });
}

/**
 * Verifies a CA with a PEM certificate (`readPem`, read once the CA is known to be unverified) whose common name is
 * the CA's verification token and which the CA signed: proof that whoever registered the CA holds its key. Each
 * failure has its own code.
 */
export async function verifyCa(rt: Runtime, row: Row, readPem: () => Promise<string>, at: Date): Promise<void> {
  if (row.isVerified) throw new ApiError('CA_ALREADY_VERIFIED');
  const text = await readPem();
  const [cert] = pemCertificates(text);
  if (!cert) throw new ApiError('COULD_NOT_PARSE_BODY', { message: 'the body is not a PEM certificate' });
  if (commonName(cert) !== row.verificationToken) {
    throw new ApiError('INVALID_COMMON_NAME', {
      message: `the certificate's common name must be the CA's verification token (${row.verificationToken})`,
    });
  }
  if (!signedByCa(row, cert))
    throw new ApiError('CERTIFICATE_FAILED_VALIDATION', { message: 'the certificate was not signed by this CA' });
  await rt.writes.update(ca.name, row, { isVerified: true }, at.toISOString());
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
