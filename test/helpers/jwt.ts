// Enrollment JWTs as a client sees them (wire-protocol section 6): decode, then verify against the certificate the
// controller presents on its TLS port (kid = hex SHA-1 of that certificate's DER).
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { compactVerify } from 'jose';
import { serverCertificatePem } from './controller.js';

export interface DecodedJwt {
  header: Record<string, any>;
  claims: Record<string, any>;
}

export function decodeJwt(jwt: string): DecodedJwt {
  const parts = jwt.trim().split('.');
  assert.equal(parts.length, 3, `a JWS compact serialisation has three parts: ${jwt.slice(0, 80)}`);
  const json = (s: string) => JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as Record<string, any>;
  return { header: json(parts[0]!), claims: json(parts[1]!) };
}

/**
 * Checks an enrollment JWT the way an SDK would: claims per wire-protocol section 6 and the signature with the
 * public key of the controller's TLS server certificate. Returns the claims.
 */
export async function verifyEnrollmentJwt(
  jwt: string,
  controller: { url: string; caPem: string },
  expected: { em: string; sub: string; jti?: string },
): Promise<Record<string, any>> {
  const { header, claims } = decodeJwt(jwt);
  assert.equal(claims.em, expected.em, 'em claim');
  assert.equal(claims.sub, expected.sub, 'sub claim is the identity id');
  assert.equal(typeof claims.jti, 'string', 'jti claim');
  assert.ok(claims.jti.length > 0, 'jti claim is not empty');
  if (expected.jti !== undefined) assert.equal(claims.jti, expected.jti, 'jti claim is the enrollment token');
  assert.equal(typeof claims.exp, 'number', 'exp claim is a number');
  assert.ok(claims.exp * 1000 > Date.now(), 'exp is in the future');
  assert.equal(typeof claims.iss, 'string', 'iss claim');
  const iss = new URL(claims.iss);
  assert.equal(iss.protocol, 'https:', 'iss is an https URL');
  assert.equal(iss.port, new URL(controller.url).port, 'iss names the controller port');
  assert.ok('aud' in claims, 'aud claim present');
  assert.ok(Array.isArray(claims.aud) || typeof claims.aud === 'string', 'aud is a string or an array');

  const certPem = await serverCertificatePem(controller.url, controller.caPem);
  const cert = new X509Certificate(certPem);
  assert.equal(
    header.kid,
    createHash('sha1').update(cert.raw).digest('hex'),
    'kid is the hex SHA-1 of the TLS server certificate',
  );
  await compactVerify(jwt.trim(), cert.publicKey);
  return claims;
}
