// Enrollment JWTs (wire-protocol §6): signed with the TLS server certificate's key, so an SDK that fetched the
// server chain can check the token, with kid = hex SHA-1 of that certificate's DER, as OpenZiti does.
import { createPrivateKey, type KeyObject, sign as cryptoSign, X509Certificate } from 'node:crypto';
import { exportJWK, jwtVerify, SignJWT } from 'jose';
import { sha1FingerprintHex, sha1FingerprintOfDer } from './fingerprint.js';
import type { Pki } from './pki.js';

export type EnrollmentMethod = 'ott' | 'ottca' | 'updb' | 'erott' | 'trott';

export interface EnrollmentJwtSigner {
  sign(claims: { em: EnrollmentMethod; sub: string; jti: string; exp: Date; ctrls?: string[] }): Promise<string>;
  /**
   * The public JWK set served at GET /enroll/jwks: this controller's key, then those of the other controllers on
   * its database, each with its certificate (`x5c`), which a client checks against the CA bundle they all serve.
   */
  jwks(): Promise<{ keys: object[] }>;
  /**
   * The public key `kid` names among those `jwks` serves: what checks a token any controller on the database
   * signed with its server key (a session token made on another controller). Undefined for an unknown kid.
   */
  keyOf(kid: string): Promise<KeyObject | undefined>;
  /**
   * The enrollment challenge: the nonce's UTF-8 bytes signed (RS256: RSASSA-PKCS1-v1_5 with SHA-256) by the key
   * `kid` names, the signature in standard base64; undefined when no key of this controller has that id.
   */
  signNonce(kid: string, nonce: string): { algorithm: string; kid: string; signature: string } | undefined;
  /**
   * A JWT without expiry, signed like enrollment JWTs: a CA's enrollment JWT (`em: "ca"`) or a network JWT, which
   * name a trust anchor rather than carry a one-time token. Issued by the issuer with one trailing slash, for
   * `openziti-enroller`; `sub` defaults to that issuer (a network JWT names the controller itself).
   */
  signStatic(claims: { em: 'ca' | 'network'; jti: string; sub?: string }): Promise<string>;
  issuer: string;
}

export interface EnrollmentClaims {
  em: EnrollmentMethod;
  ctrls: string[];
  iss: string;
  sub: string;
  jti: string;
  /** unix seconds */
  exp: number;
  iat: number;
  aud: string[];
}

const ALG = 'RS256';
const METHODS: readonly string[] = ['ott', 'ottca', 'updb', 'erott', 'trott'];

/**
 * `members` answers the server certificates of every controller on the database (its own among them): an
 * enrollment JWT is signed by the controller that issued it, and any of them may be asked for its key.
 */
export function createEnrollmentJwtSigner(
  pki: Pki,
  issuer: string,
  members: () => Promise<string[]> = async () => [],
): EnrollmentJwtSigner {
  const privateKey = createPrivateKey(pki.serverKeyPem);
  const kid = sha1FingerprintHex(pki.serverCertPem);
  // A kid is its certificate's SHA-1: once found, it names that key for good (the members are read only for others).
  const knownKeys = new Map<string, KeyObject>([[kid, new X509Certificate(pki.serverCertPem).publicKey]]);
  /** This controller's certificate and the others', by kid. */
  const certificatesByKid = async () => {
    const certificates = [pki.serverCertPem, ...(await members())].map((pem) => new X509Certificate(pem));
    return new Map(certificates.map((cert) => [sha1FingerprintOfDer(cert.raw), cert]));
  };
  return {
    issuer,
    async sign({ em, sub, jti, exp, ctrls }) {
      // Claim set exactly as OpenZiti's EnrollmentClaims; ctrls is always an array (the spec shows one),
      // and aud is [""] because Go serialises its empty audience that way.
      return new SignJWT({ em, ctrls: ctrls ?? [] })
        .setProtectedHeader({ alg: ALG, kid, typ: 'JWT' })
        .setIssuer(issuer)
        .setSubject(sub)
        .setJti(jti)
        .setAudience([''])
        .setIssuedAt()
        .setExpirationTime(Math.floor(exp.getTime() / 1000))
        .sign(privateKey);
    },
    signNonce(keyId, nonce) {
      if (keyId !== kid) return undefined;
      return {
        algorithm: ALG,
        kid,
        signature: cryptoSign('sha256', Buffer.from(nonce, 'utf8'), privateKey).toString('base64'),
      };
    },
    signStatic({ em, jti, sub }) {
      const iss = `${issuer.replace(/\/+$/, '')}/`;
      return new SignJWT({ em })
        .setProtectedHeader({ alg: ALG, kid, typ: 'JWT' })
        .setIssuer(iss)
        .setSubject(sub ?? iss)
        .setJti(jti)
        .setAudience(['openziti-enroller'])
        .setIssuedAt()
        .sign(privateKey);
    },
    async jwks() {
      const keys = [...(await certificatesByKid())].map(async ([id, cert]) => ({
        ...(await exportJWK(cert.publicKey)),
        kid: id,
        alg: ALG,
        use: 'sig',
        x5c: [cert.raw.toString('base64')],
      }));
      return { keys: await Promise.all(keys) };
    },
    async keyOf(keyId) {
      const known = knownKeys.get(keyId);
      if (known) return known;
      const key = (await certificatesByKid()).get(keyId)?.publicKey;
      if (key) knownKeys.set(keyId, key);
      return key;
    },
  };
}

/**
 * Verify an enrollment JWT against the controller's server certificate: RS256 only, kid must be that
 * certificate's SHA-1, signature and exp checked. Returns the claims; throws on anything else.
 */
export async function verifyEnrollmentJwt(
  jwt: string,
  pki: Pki,
  opts: { currentDate?: Date } = {},
): Promise<EnrollmentClaims> {
  const publicKey = new X509Certificate(pki.serverCertPem).publicKey;
  const kid = sha1FingerprintHex(pki.serverCertPem);
  // algorithms pins RS256, which also rules out alg "none" and HMAC-with-public-key confusion.
  const { payload, protectedHeader } = await jwtVerify(jwt, publicKey, {
    algorithms: [ALG],
    requiredClaims: ['exp', 'sub', 'jti', 'iss'],
    ...(opts.currentDate ? { currentDate: opts.currentDate } : {}),
  });
  if (protectedHeader.kid !== kid) throw new Error('enrollment JWT kid does not match the controller certificate');
  const { em, ctrls, iss, sub, jti, exp, iat, aud } = payload as Record<string, unknown>;
  if (typeof em !== 'string' || !METHODS.includes(em)) throw new Error('enrollment JWT has an unknown em claim');
  return {
    em: em as EnrollmentMethod,
    ctrls: Array.isArray(ctrls) ? ctrls.filter((c): c is string => typeof c === 'string') : [],
    iss: iss as string,
    sub: sub as string,
    jti: jti as string,
    exp: exp as number,
    iat: typeof iat === 'number' ? iat : 0,
    aud: Array.isArray(aud) ? (aud as string[]) : typeof aud === 'string' ? [aud] : [],
  };
}
