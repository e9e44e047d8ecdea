// Client certificates issued by the controller's intermediate CA for enrolled identities, as OpenZiti's client
// signer makes them: the CSR's subject and key, one year, clientAuth, and the identity's SPIFFE id as a URI SAN.
import { createHash, createPrivateKey, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { children, decodeOid, explicit, octets, oid, pemDecode, pemEncode, readOne, seq, bits, bool, TAG, time, tlv, unsignedInt, smallInt } from '../../protocol/der.js';
import { CsrError, parseCsr, signatureAlgorithmFor, type ParsedCsr } from '../../protocol/csr.js';
import type { Pki } from './pki.js';

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

/** Parses, verifies and checks the key of a CSR: everything that can be refused before any state changes. */
export function acceptCsr(pem: string): ParsedCsr {
  const csr = parseCsr(pem);
  checkKeyPolicy(csr.publicKey);
  return csr;
}

const OIDS = {
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  clientAuth: '1.3.6.1.5.5.7.3.2',
};

const MINUTE = 60_000;

/** The SPIFFE id OpenZiti gives an identity's enrollment certificate: `spiffe://<trust domain>/identity/<id>`. */
export function identitySpiffeId(trustDomain: string, identityId: string): string {
  return `spiffe://${trustDomain}/identity/${encodeURIComponent(identityId)}`;
}

interface IssuerParts {
  subjectDer: Buffer;
  keyId?: Buffer;
  notAfter: Date;
  key: KeyObject;
}

/** What issuing needs of the intermediate: its subject (as encoded), key identifier, expiry and key. */
function issuerParts(pki: Pki): IssuerParts {
  const der = pemDecode(pki.intermediateCertPem, 'CERTIFICATE');
  const [tbs] = children(readOne(der, TAG.SEQUENCE).content);
  const fields = children(tbs.content);
  // tbsCertificate: [0] version, serial, signature, issuer, validity, subject, spki, ..., [3] extensions
  const offset = fields[0].tag === 0xa0 ? 1 : 0;
  const subjectDer = fields[offset + 4].raw;
  let keyId: Buffer | undefined;
  const extensions = fields.find((f) => f.tag === 0xa3);
  if (extensions) {
    for (const ext of children(children(extensions.content)[0].content)) {
      const [id, ...rest] = children(ext.content);
      if (decodeOid(id.content) === OIDS.subjectKeyIdentifier) keyId = readOne(rest[rest.length - 1].content, TAG.OCTET_STRING).content;
    }
  }
  return { subjectDer, keyId, notAfter: new Date(new X509Certificate(der).validTo), key: createPrivateKey(pki.intermediateKeyPem) };
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));
}

export interface IssuedCert {
  /** The leaf followed by the intermediate: what `/enroll/ott` returns as `cert` (no root, as OpenZiti). */
  chainPem: string;
  leafPem: string;
  /** Lowercase hex SHA-1 of the leaf DER: the cert authenticator's fingerprint. */
  fingerprint: string;
}

/** Signs a client certificate for an accepted CSR. */
export function issueClientCert(pki: Pki, csr: ParsedCsr, opts: { uris: string[]; now: Date; validityDays?: number }): IssuedCert {
  const issuer = issuerParts(pki);
  const notBefore = new Date(opts.now.getTime() - MINUTE);
  const wanted = new Date(opts.now.getTime());
  wanted.setUTCDate(wanted.getUTCDate() + (opts.validityDays ?? 365));
  // Never beyond the issuer: a chain that expires before its leaf is refused by every verifier.
  const notAfter = new Date(Math.min(wanted.getTime(), issuer.notAfter.getTime()));
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x7f) || 1;
  const spkiBits = children(readOne(csr.spkiDer, TAG.SEQUENCE).content)[1].content.subarray(1);
  const { algorithmId, hash } = signatureAlgorithmFor(issuer.key);

  const extensions = [
    extension(OIDS.basicConstraints, true, seq()),
    // digitalSignature, keyEncipherment, dataEncipherment (bits 0, 2, 3), as OpenZiti's client signer.
    extension(OIDS.keyUsage, true, bits(Buffer.from([0b1011_0000]), 4)),
    extension(OIDS.extKeyUsage, false, seq(oid(OIDS.clientAuth))),
    extension(OIDS.subjectKeyIdentifier, false, octets(createHash('sha1').update(spkiBits).digest())),
    ...(issuer.keyId ? [extension(OIDS.authorityKeyIdentifier, false, seq(tlv(0x80, issuer.keyId)))] : []),
    // uniformResourceIdentifier is [6] IMPLICIT IA5String.
    ...(opts.uris.length > 0 ? [extension(OIDS.subjectAltName, false, seq(...opts.uris.map((u) => tlv(0x86, Buffer.from(u, 'ascii')))))] : []),
  ];
  const tbs = seq(
    explicit(0, smallInt(2)),
    unsignedInt(serial),
    algorithmId,
    issuer.subjectDer,
    seq(time(notBefore), time(notAfter)),
    csr.subjectDer,
    csr.spkiDer,
    explicit(3, seq(...extensions)),
  );
  const der = seq(tbs, algorithmId, bits(sign(hash, tbs, issuer.key)));
  const leafPem = pemEncode('CERTIFICATE', der);
  const intermediate = pki.intermediateCertPem.endsWith('\n') ? pki.intermediateCertPem : `${pki.intermediateCertPem}\n`;
  return { leafPem, chainPem: leafPem + intermediate, fingerprint: createHash('sha1').update(der).digest('hex') };
}
