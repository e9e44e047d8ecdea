// Router enrollment and certificate renewal (wire-protocol section 6): an edge router redeems its `erott` token (a
// transit router its `trott` token) with a server CSR and a client CSR, and gets both certificates signed by the
// controller's intermediate CA; the client certificate's fingerprint is then how the router is known. Later the
// router renews both over mutual TLS with its current client certificate, which stops working at once.
import { X509Certificate } from 'node:crypto';
import { ApiError } from '../../../protocol/errors.js';
import { resource } from '../../../resources/index.js';
import type { ResourceDef } from '../../../resources/types.js';
import { sha1FingerprintOfDer } from '../../pki/fingerprint.js';
import { csrStep } from '../../pki/issue.js';
import { issuedByThisPki } from '../../pki/pki.js';
import { issueRouterCerts, type RouterCerts } from '../../pki/router-certs.js';
import type { Runtime } from '../../runtime.js';
import type { Row } from '../../store/repository.js';

const EDGE = resource('edge-router');
const TRANSIT = resource('transit-router');

/** A router's two CSRs, as its enrollment or renewal body gives them. */
export interface RouterCsrs {
  serverCsr?: string;
  clientCsr?: string;
}

/** The body fields an error about each CSR names. */
type CsrFields = { server: string; client: string };

/** What a router is answered: its client and server certificate chains, and the CA bundle. */
export interface RouterCertificates {
  ca: string;
  cert: string;
  serverCert: string;
}

export interface RouterWithToken {
  def: ResourceDef;
  row: Row;
  method: 'erott' | 'trott';
}

/** The router (edge first, then transit) whose outstanding enrollment has this token. */
export async function routerWithToken(rt: Runtime, token: string): Promise<RouterWithToken | undefined> {
  const edge = await rt.store.repoFor(EDGE).findOne({ enrollmentToken: token });
  if (edge) return { def: EDGE, row: edge, method: 'erott' };
  const transit = await rt.store.repoFor(TRANSIT).findOne({ enrollmentToken: token, isEdgeRouter: false });
  return transit ? { def: TRANSIT, row: transit, method: 'trott' } : undefined;
}

const INVALID_TOKEN = () =>
  new ApiError('INVALID_ENROLLMENT_TOKEN', { message: 'the enrollment token is unknown or has already been used' });

/** Signs both certificates, turning a CSR refusal into COULD_NOT_PROCESS_CSR (before anything is written). */
function signPair(rt: Runtime, routerId: string, csrs: RouterCsrs, now: Date, fields: CsrFields): RouterCerts {
  for (const [which, value] of [
    ['server', csrs.serverCsr],
    ['client', csrs.clientCsr],
  ] as const) {
    if (!value)
      throw new ApiError('COULD_NOT_PROCESS_CSR', {
        message: `no ${which} CSR was given`,
        cause: { field: fields[which], reason: 'is required', value: '' },
      });
  }
  return csrStep(
    (err) => (err.message.startsWith('server') ? fields.server : fields.client),
    () => issueRouterCerts(rt.pki, { routerId, serverCsr: csrs.serverCsr!, clientCsr: csrs.clientCsr!, now }),
  );
}

/**
 * Writes the router's new certificate (and whatever else `values` says) with the resource's hooks, in one transaction.
 */
async function storeCertificate(
  rt: Runtime,
  def: ResourceDef,
  existing: Row,
  certs: RouterCerts,
  values: Record<string, unknown>,
  now: Date,
  stillValid: (row: Row) => boolean,
  lost: () => ApiError,
): Promise<void> {
  const at = now.toISOString();
  const all: Record<string, unknown> = {
    ...values,
    isVerified: true,
    fingerprint: certs.client.fingerprint,
    unverifiedCertPem: null,
    unverifiedFingerprint: null,
  };
  // Transit routers keep no certificate, only its fingerprint (as OpenZiti's fabric routers).
  if ('certPem' in def.fields) all.certPem = certs.client.chainPem;
  await rt.store.tx(async () => {
    // Lock the row first (a write takes the row lock on PostgreSQL; SQLite transactions are serial), then read it
    // again: a token redeemed (or a certificate renewed) by a request racing with this one wins, this one fails.
    await rt.writes.lockRow(def.name, existing.id, at);
    const current = await rt.store.repoFor(def).find(existing.id);
    if (!current || !stillValid(current)) throw lost();
    await rt.writes.update(def.name, current, all, at);
  });
}

function certificatesOf(rt: Runtime, certs: RouterCerts): RouterCertificates {
  return { ca: rt.pki.caBundlePem, cert: certs.client.chainPem, serverCert: certs.server.chainPem };
}

/**
 * Redeems a router's enrollment token: the token must be outstanding and unexpired, both CSRs acceptable; then, in one
 * transaction, the router is verified, gets its fingerprint and certificate, and its enrollment is gone.
 */
export async function redeemRouterToken(
  rt: Runtime,
  token: string,
  /** What routerWithToken found for the token (looked up by the caller, which may have needed it to route here). */
  found: RouterWithToken | undefined,
  method: string | undefined,
  csrs: RouterCsrs,
  { fields = { server: 'serverCertCsr', client: 'certCsr' }, now }: { fields?: CsrFields; now: Date },
): Promise<RouterCertificates> {
  if (!found) throw INVALID_TOKEN();
  if (method !== undefined && method !== found.method) {
    throw new ApiError('INVALID_ENROLL_METHOD', {
      message: `the token is for ${found.method} enrollment, not ${method}`,
    });
  }
  const expiresAt = found.row.enrollmentExpiresAt as string | null;
  if (expiresAt && Date.parse(expiresAt) <= now.getTime()) {
    throw new ApiError('ENROLLMENT_EXPIRED', {
      message: `the enrollment expired at ${expiresAt}; an administrator can re-enroll the router`,
    });
  }
  const certs = signPair(rt, found.row.id, csrs, now, fields);
  const cleared = { enrollmentToken: null, enrollmentJwt: null, enrollmentCreatedAt: null, enrollmentExpiresAt: null };
  await storeCertificate(
    rt,
    found.def,
    found.row,
    certs,
    cleared,
    now,
    (row) => row.enrollmentToken === token,
    INVALID_TOKEN,
  );
  return certificatesOf(rt, certs);
}

/** The router a client certificate stands for: issued by this controller and the current one of a verified router. */
export async function routerOfCertificate(
  rt: Runtime,
  der: Buffer | undefined,
): Promise<{ def: ResourceDef; row: Row }> {
  const unauthorized = (why: string) =>
    new ApiError('UNAUTHORIZED', {
      message: `router certificate renewal needs the router's current client certificate: ${why}`,
    });
  if (!der) throw unauthorized('none was presented on the TLS connection');
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(der);
  } catch {
    throw unauthorized('the presented certificate cannot be read');
  }
  // The current intermediate or one it replaced: a router's certificate outlives an intermediate rotation.
  if (!issuedByThisPki(rt.pki, leaf)) throw unauthorized('the presented certificate was not issued by this controller');
  const fingerprint = sha1FingerprintOfDer(der);
  const edge = await rt.store.repoFor(EDGE).findOne({ fingerprint, isVerified: true });
  if (edge) return { def: EDGE, row: edge };
  const transit = await rt.store.repoFor(TRANSIT).findOne({ fingerprint, isVerified: true, isEdgeRouter: false });
  if (transit) return { def: TRANSIT, row: transit };
  throw unauthorized('the presented certificate is not the current one of any enrolled router');
}

/**
 * New server and client certificates for the router whose current client certificate (`der`) the client presented.
 * The new client certificate replaces the old one at once (its fingerprint is the router's now), so the old one stops
 * working even though it has not expired.
 */
export async function extendRouterCertificates(
  rt: Runtime,
  der: Buffer | undefined,
  csrs: RouterCsrs,
  now: Date,
): Promise<RouterCertificates> {
  const { def, row } = await routerOfCertificate(rt, der);
  const certs = signPair(rt, row.id, csrs, now, { server: 'serverCertCsr', client: 'certCsr' });
  await storeCertificate(
    rt,
    def,
    row,
    certs,
    {},
    now,
    (current) => current.fingerprint === row.fingerprint && current.isVerified === true,
    () => new ApiError('UNAUTHORIZED', { message: 'the certificate was renewed or revoked meanwhile' }),
  );
  return certificatesOf(rt, certs);
}
