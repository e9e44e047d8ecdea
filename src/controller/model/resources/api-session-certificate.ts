// Ephemeral certificates of the current API session (client API): a CSR becomes a client certificate valid for
// 12 hours at most (as OpenZiti), signed by the intermediate CA, its subject the identity's id and its SPIFFE id
// naming the session. They are listed, read and deleted by that session only (another session's are 404), and go
// with the session. They are not accepted by `/authenticate?method=cert`: a session's certificate must not open
// sessions that outlive it (OpenZiti's routers accept them for the session's own connections; ctl has no data plane).
import { X509Certificate } from 'node:crypto';
import { commonNameSubject } from '../../../protocol/csr.js';
import { resource } from '../../../resources/index.js';
import { acceptCsr, csrStep, issueClientCert } from '../../pki/issue.js';
import type { Runtime } from '../../runtime.js';
import { newId, type Row } from '../../store/repository.js';
import type { ResourceModel } from '../behaviour.js';
import { toWire } from '../present.js';

const certificate = resource('api-session-certificate');
/** Where the current session's certificates are served. */
export const SESSION_CERTIFICATES_PATH = '/current-api-session/certificates';
/** OpenZiti's lifespan of a session certificate. */
const SESSION_CERT_LIFETIME_MS = 12 * 60 * 60 * 1000;

export const sessionCertificateLinks = (id: string) => ({ self: { href: `.${SESSION_CERTIFICATES_PATH}/${id}` } });

function present(rows: Row[]): Record<string, unknown>[] {
  return rows.map((row) => {
    const wire = toWire(certificate, row);
    wire._links = sessionCertificateLinks(row.id);
    return wire;
  });
}

/** The SPIFFE id OpenZiti gives a session certificate. */
function sessionSpiffeId(trustDomain: string, identityId: string, apiSessionId: string, id: string): string {
  const identity = `spiffe://${trustDomain}/identity/${encodeURIComponent(identityId)}`;
  return `${identity}/apiSession/${encodeURIComponent(apiSessionId)}/apiSessionCertificate/${encodeURIComponent(id)}`;
}

/** A certificate for the session from a CSR (its subject the identity's, whatever the CSR asks); answers it stored. */
export async function issueSessionCertificate(
  rt: Runtime,
  { identityId, apiSessionId }: { identityId: string; apiSessionId: string },
  csrPem: string,
  at: Date,
): Promise<{ id: string; chainPem: string }> {
  const id = newId();
  const issued = csrStep('csr', () =>
    // The subject is the identity, whatever the CSR asked for (as OpenZiti): the certificate speaks for it alone.
    issueClientCert(
      rt.pki,
      { ...acceptCsr(csrPem), subjectDer: commonNameSubject(identityId) },
      {
        uris: [sessionSpiffeId(rt.pki.trustDomain, identityId, apiSessionId, id)],
        now: at,
        validityMs: SESSION_CERT_LIFETIME_MS,
      },
    ),
  );
  const leaf = new X509Certificate(issued.leafPem);
  await rt.store.tx(() =>
    rt.writes.insert(
      certificate.name,
      {
        apiSessionId,
        subject: leaf.subject.replace(/\n/g, ','),
        fingerprint: issued.fingerprint,
        validFrom: new Date(leaf.validFrom).toISOString(),
        validTo: new Date(leaf.validTo).toISOString(),
        certificate: issued.chainPem,
      },
      { id, now: at.toISOString() },
    ),
  );
  return { id, chainPem: issued.chainPem };
}

export const model: ResourceModel = { resource: 'api-session-certificate', present };
