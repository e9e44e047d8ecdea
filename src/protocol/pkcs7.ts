// PKCS#7 "certs-only" bundles as served by GET /.well-known/est/cacerts (wire-protocol §6), plus the
// certificate facts a user is shown before trusting a CA. Shared by controller and CLI; the CLI imports
// this lazily, so the only top-level imports are node-forge and node:crypto.
import { X509Certificate } from 'node:crypto';
import forge from 'node-forge';
import { pemEncode } from './der.js';
import { pemBlocks } from './pem.js';

const { asn1 } = forge;
// @types/node-forge only knows the old boolean `strict` argument; forge >= 0.10 takes an options object.
const fromDer = asn1.fromDer as unknown as (
  bytes: forge.util.ByteStringBuffer,
  options: { strict?: boolean; parseAllBytes?: boolean; decodeBitStrings?: boolean },
) => forge.asn1.Asn1;

const OID_SIGNED_DATA = '1.2.840.113549.1.7.2';
const OID_DATA = '1.2.840.113549.1.7.1';

/** Colon-separated uppercase hex SHA-256 of the certificate DER, the form shown at trust-on-first-use. */
export function sha256Fingerprint(certPem: string): string {
  // X509Certificate.fingerprint256 is exactly "AB:CD:..." over the DER, and works for RSA and EC alike.
  return new X509Certificate(certPem).fingerprint256;
}

/** Every certificate in a PEM string (a bundle may hold several), as DER buffers. */
function pemCertsToDer(pem: string): Buffer[] {
  return pemBlocks(pem)
    .filter((block) => block.label === 'CERTIFICATE')
    .map((block) => Buffer.from(block.base64, 'base64'));
}

// Certificates are carried as raw DER, never as forge certificate objects: forge only understands RSA keys,
// and a CA bundle (ours later, or another controller's) may hold EC certificates.
// decodeBitStrings:false keeps signatures/keys as opaque bytes so re-encoding gives back the exact DER.
function derToAsn1(der: Buffer): forge.asn1.Asn1 {
  return fromDer(forge.util.createBuffer(der.toString('binary')), { strict: true, decodeBitStrings: false });
}

function asn1ToBuffer(node: forge.asn1.Asn1): Buffer {
  return Buffer.from(asn1.toDer(node).getBytes(), 'binary');
}

/**
 * DER PKCS#7 degenerate SignedData (no signers, no content) holding every certificate of `pems`
 * (each entry may itself be a multi-cert bundle), base64 wrapped at 64 chars, '\n' separated,
 * no trailing newline — byte-for-byte the layout of OpenZiti's getCaCerts.
 */
export function certsOnlyPkcs7Base64(pems: string[]): string {
  const certs = pems.flatMap(pemCertsToDer);
  if (certs.length === 0) throw new Error('certsOnlyPkcs7Base64: no certificates given');
  // Verify each is a certificate before embedding it; a broken bundle must fail here, not at the client.
  for (const der of certs) new X509Certificate(der);
  const { Class, Type } = asn1;
  const signedData = asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, [
    asn1.create(Class.UNIVERSAL, Type.INTEGER, false, String.fromCharCode(1)), // version 1
    asn1.create(Class.UNIVERSAL, Type.SET, true, []), // digestAlgorithms: none
    asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, [
      asn1.create(Class.UNIVERSAL, Type.OID, false, asn1.oidToDer(OID_DATA).getBytes()),
    ]),
    // certificates [0] IMPLICIT SET OF Certificate; kept in the given order (root first), as Go does.
    asn1.create(Class.CONTEXT_SPECIFIC, 0, true, certs.map(derToAsn1)),
    asn1.create(Class.UNIVERSAL, Type.SET, true, []), // signerInfos: none
  ]);
  const contentInfo = asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, [
    asn1.create(Class.UNIVERSAL, Type.OID, false, asn1.oidToDer(OID_SIGNED_DATA).getBytes()),
    asn1.create(Class.CONTEXT_SPECIFIC, 0, true, [signedData]),
  ]);
  const b64 = asn1ToBuffer(contentInfo).toString('base64');
  return (b64.match(/.{1,64}/g) ?? []).join('\n');
}

/**
 * Certificate PEMs inside a cacerts body: bare base64 (any whitespace/CRLF) or a PEM PKCS7 wrapper.
 * Throws a plain Error with a readable message on anything else.
 */
export function parsePkcs7Certs(body: string): string[] {
  const pem = pemBlocks(body).find((block) => block.label === 'PKCS7');
  const b64 = pem ? pem.base64 : body.replace(/\s+/g, '');
  // Buffer.from silently skips junk characters, so validate the alphabet first.
  if (b64.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) {
    throw new Error('PKCS#7 body is not base64');
  }
  let root: forge.asn1.Asn1;
  try {
    // forge also reads indefinite-length (BER) constructed values, which some EST servers send.
    root = fromDer(forge.util.createBuffer(Buffer.from(b64, 'base64').toString('binary')), {
      strict: true,
      decodeBitStrings: false,
    });
  } catch (err) {
    throw new Error(`PKCS#7 body is not valid DER: ${(err as Error).message}`);
  }
  const children = (n: forge.asn1.Asn1 | undefined): forge.asn1.Asn1[] => (n && Array.isArray(n.value) ? n.value : []);
  const [oid, explicit] = children(root);
  if (
    !oid ||
    oid.type !== asn1.Type.OID ||
    asn1.derToOid(forge.util.createBuffer(oid.value as string)) !== OID_SIGNED_DATA
  ) {
    throw new Error('PKCS#7 body is not SignedData');
  }
  const signedData = children(explicit)[0];
  const certSet = children(signedData).find(
    (n) => n.tagClass === asn1.Class.CONTEXT_SPECIFIC && n.type === 0 && n.constructed,
  );
  const pems = children(certSet).map((c) => pemEncode('CERTIFICATE', asn1ToBuffer(c)));
  if (pems.length === 0) throw new Error('PKCS#7 body holds no certificates');
  for (const p of pems) new X509Certificate(p); // reject garbage before anyone trusts it
  return pems;
}

export interface CertSummary {
  subject: string;
  issuer: string;
  sha256: string;
  /** ISO 8601 */
  notAfter: string;
  isCa: boolean;
}

/** What a user needs to decide whether to trust a CA certificate. */
export function certSummary(pem: string): CertSummary {
  const x = new X509Certificate(pem);
  // node prints DNs one attribute per line; a single line reads better in a prompt.
  const dn = (s: string) => s.split('\n').filter(Boolean).join(', ');
  return {
    subject: dn(x.subject),
    issuer: dn(x.issuer),
    sha256: x.fingerprint256,
    notAfter: new Date(x.validTo).toISOString(),
    isCa: x.ca,
  };
}
