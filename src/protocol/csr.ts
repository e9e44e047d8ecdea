// PKCS#10 certificate signing requests (RFC 2986): made by the CLI for a key it generated, read and checked by
// the controller at enrollment. Keys, signatures and their checks are node:crypto's (RSA and EC alike); the
// structure around them is the small DER module beside this file.
import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import {
  bits,
  children,
  decodeOid,
  DerError,
  nullValue,
  oid,
  pemDecode,
  pemEncode,
  readOne,
  seq,
  set,
  smallInt,
  TAG,
  utf8,
} from './der.js';

export const OID = {
  commonName: '2.5.4.3',
  rsaEncryption: '1.2.840.113549.1.1.1',
  sha256WithRSA: '1.2.840.113549.1.1.11',
  sha384WithRSA: '1.2.840.113549.1.1.12',
  sha512WithRSA: '1.2.840.113549.1.1.13',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  ecdsaWithSha384: '1.2.840.10045.4.3.3',
  ecdsaWithSha512: '1.2.840.10045.4.3.4',
} as const;

/** Signature algorithms accepted and used: RSA PKCS#1 v1.5 and ECDSA with SHA-2 (SHA-1 is refused as weak). */
const SIGNATURE_ALGORITHMS: Record<string, { keyType: 'rsa' | 'ec'; hash: string }> = {
  [OID.sha256WithRSA]: { keyType: 'rsa', hash: 'sha256' },
  [OID.sha384WithRSA]: { keyType: 'rsa', hash: 'sha384' },
  [OID.sha512WithRSA]: { keyType: 'rsa', hash: 'sha512' },
  [OID.ecdsaWithSha256]: { keyType: 'ec', hash: 'sha256' },
  [OID.ecdsaWithSha384]: { keyType: 'ec', hash: 'sha384' },
  [OID.ecdsaWithSha512]: { keyType: 'ec', hash: 'sha512' },
};

export class CsrError extends Error {
  override name = 'CsrError';
}

/**
 * The AlgorithmIdentifier and hash a key signs with: SHA-256 for RSA and P-256, SHA-384 for P-384, SHA-512 for P-521.
 */
export function signatureAlgorithmFor(key: KeyObject): { algorithmId: Buffer; hash: string } {
  if (key.asymmetricKeyType === 'rsa') return { algorithmId: seq(oid(OID.sha256WithRSA), nullValue()), hash: 'sha256' };
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    const [id, hash] =
      curve === 'secp384r1'
        ? [OID.ecdsaWithSha384, 'sha384']
        : curve === 'secp521r1'
          ? [OID.ecdsaWithSha512, 'sha512']
          : [OID.ecdsaWithSha256, 'sha256'];
    // ECDSA identifiers have no parameters at all (RFC 5758 3.2), not even NULL.
    return { algorithmId: seq(oid(id)), hash };
  }
  throw new CsrError(`keys of type ${key.asymmetricKeyType} are not supported (use RSA or EC)`);
}

/** A Name of one common name, the subject ctl puts in its requests. */
export function commonNameSubject(cn: string): Buffer {
  return seq(set(seq(oid(OID.commonName), utf8(cn))));
}

/** A PEM CSR for `privateKey` with subject CN=`commonName` and no attributes. */
export function createCsr(privateKey: KeyObject, commonName: string): string {
  const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  // version 0, subject, subjectPKInfo, attributes [0] IMPLICIT SET (empty)
  const info = seq(smallInt(0), commonNameSubject(commonName), spki, Buffer.from([0xa0, 0x00]));
  const { algorithmId, hash } = signatureAlgorithmFor(privateKey);
  const signature = sign(hash, info, privateKey);
  return pemEncode('CERTIFICATE REQUEST', seq(info, algorithmId, bits(signature)));
}

export interface ParsedCsr {
  /** The subject Name, exactly as the requester encoded it (copied into the certificate). */
  subjectDer: Buffer;
  /** SubjectPublicKeyInfo, exactly as sent. */
  spkiDer: Buffer;
  publicKey: KeyObject;
}

/**
 * Parses a PEM CSR and verifies its self-signature (proof that the requester holds the key). Throws CsrError with
 * a sentence a person can act on for anything unparsable, unsigned, or signed with an algorithm not accepted.
 */
export function parseCsr(pem: string): ParsedCsr {
  try {
    const der = pemDecode(pem, 'CERTIFICATE REQUEST', 'NEW CERTIFICATE REQUEST');
    const [info, algorithm, signature, ...rest] = children(readOne(der, TAG.SEQUENCE).content);
    if (
      !info ||
      !algorithm ||
      !signature ||
      rest.length > 0 ||
      info.tag !== TAG.SEQUENCE ||
      algorithm.tag !== TAG.SEQUENCE ||
      signature.tag !== TAG.BIT_STRING
    ) {
      throw new CsrError('not a PKCS#10 certificate request');
    }
    const [version, subject, spki] = children(info.content);
    if (!version || version.tag !== TAG.INTEGER || !version.content.equals(Buffer.from([0])))
      throw new CsrError('unsupported CSR version');
    if (!subject || subject.tag !== TAG.SEQUENCE || !spki || spki.tag !== TAG.SEQUENCE)
      throw new CsrError('not a PKCS#10 certificate request');
    let publicKey: KeyObject;
    try {
      publicKey = createPublicKey({ key: spki.raw, format: 'der', type: 'spki' });
    } catch (err) {
      throw new CsrError(`the CSR's public key cannot be read: ${(err as Error).message}`);
    }
    const algOid = children(algorithm.content)[0];
    if (!algOid || algOid.tag !== TAG.OID) throw new CsrError('the CSR has no signature algorithm');
    const alg = SIGNATURE_ALGORITHMS[decodeOid(algOid.content)];
    if (!alg)
      throw new CsrError(
        'the CSR is signed with an algorithm not accepted ' +
          `(${decodeOid(algOid.content)}); use SHA-256 or stronger with RSA or ECDSA`,
      );
    if (alg.keyType !== publicKey.asymmetricKeyType)
      throw new CsrError(`the CSR's signature algorithm does not fit its ${publicKey.asymmetricKeyType} key`);
    if (signature.content[0] !== 0) throw new CsrError('malformed CSR signature');
    if (!verify(alg.hash, info.raw, publicKey, signature.content.subarray(1)))
      throw new CsrError('the CSR signature does not verify: it was not signed by the key it carries');
    return { subjectDer: subject.raw, spkiDer: spki.raw, publicKey };
  } catch (err) {
    if (err instanceof CsrError) throw err;
    if (err instanceof DerError) throw new CsrError(`the CSR cannot be parsed: ${err.message}`);
    throw new CsrError(`the CSR cannot be processed: ${(err as Error).message}`);
  }
}
