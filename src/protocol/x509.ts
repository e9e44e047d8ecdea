// X.509 certificates assembled from parts (RFC 5280), signed with node:crypto: the controller's client certificates
// and the CLI's CA verification certificates. Reading an issuer keeps the exact bytes of its subject.
import { createHash, randomBytes, sign, type KeyObject } from 'node:crypto';
import { signatureAlgorithmFor } from './csr.js';
import {
  bits,
  bool,
  children,
  decodeOid,
  explicit,
  octets,
  oid,
  pemDecode,
  pemEncode,
  readOne,
  seq,
  smallInt,
  TAG,
  time,
  tlv,
  unsignedInt,
} from './der.js';
import { certificatePems } from './pem.js';

export const EXTENSION_OIDS = {
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

/** One extension: its id, criticality and DER value. */
export function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));
}

/**
 * The subject Name (exact bytes) and the extensions of a DER certificate, each by OID with the contents of its
 * extnValue OCTET STRING (the extension's own DER); the first of a repeated extension counts.
 */
export function readCertificate(der: Buffer): { subjectDer: Buffer; extensions: Map<string, Buffer> } {
  const [tbs] = children(readOne(der, TAG.SEQUENCE).content);
  const fields = children(tbs.content);
  // tbsCertificate: [0] version, serial, signature, issuer, validity, subject, spki, ..., [3] extensions
  const offset = fields[0].tag === 0xa0 ? 1 : 0;
  const extensions = new Map<string, Buffer>();
  const wrapped = fields.find((f) => f.tag === 0xa3);
  for (const ext of wrapped ? children(children(wrapped.content)[0].content) : []) {
    const [id, ...rest] = children(ext.content);
    const key = decodeOid(id.content);
    if (!extensions.has(key)) extensions.set(key, readOne(rest[rest.length - 1].raw, TAG.OCTET_STRING).content);
  }
  return { subjectDer: fields[offset + 4].raw, extensions };
}

/** The subject Name (exact bytes) and subject key identifier, if any, of a PEM certificate. */
export function certificateParts(certPem: string): { subjectDer: Buffer; keyId?: Buffer } {
  const der = pemDecode(certificatePems(certPem)[0] ?? certPem, 'CERTIFICATE');
  const { subjectDer, extensions } = readCertificate(der);
  const ski = extensions.get(EXTENSION_OIDS.subjectKeyIdentifier);
  return { subjectDer, keyId: ski && readOne(ski, TAG.OCTET_STRING).content };
}

export interface CertificateSpec {
  issuer: { subjectDer: Buffer; keyId?: Buffer; key: KeyObject };
  subjectDer: Buffer;
  spkiDer: Buffer;
  notBefore: Date;
  notAfter: Date;
  /** Extensions beyond the subject and authority key identifiers, which are always added. */
  extensions: Buffer[];
}

/** A v3 certificate, signed by the issuer's key; returns its DER and PEM. */
export function buildCertificate(spec: CertificateSpec): { der: Buffer; pem: string } {
  const serial = randomBytes(16);
  serial[0] = serial[0] & 0x7f || 1;
  const spkiBits = children(readOne(spec.spkiDer, TAG.SEQUENCE).content)[1].content.subarray(1);
  const { algorithmId, hash } = signatureAlgorithmFor(spec.issuer.key);
  const extensions = [
    ...spec.extensions,
    extension(EXTENSION_OIDS.subjectKeyIdentifier, false, octets(createHash('sha1').update(spkiBits).digest())),
    ...(spec.issuer.keyId
      ? [extension(EXTENSION_OIDS.authorityKeyIdentifier, false, seq(tlv(0x80, spec.issuer.keyId)))]
      : []),
  ];
  const tbs = seq(
    explicit(0, smallInt(2)),
    unsignedInt(serial),
    algorithmId,
    spec.issuer.subjectDer,
    seq(time(spec.notBefore), time(spec.notAfter)),
    spec.subjectDer,
    spec.spkiDer,
    explicit(3, seq(...extensions)),
  );
  const der = seq(tbs, algorithmId, bits(sign(hash, tbs, spec.issuer.key)));
  return { der, pem: pemEncode('CERTIFICATE', der) };
}
