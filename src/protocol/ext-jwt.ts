// Validation of a JWT issued by an external signer (edge-controller-interface "Authentication" item 9), step by
// step, so that the controller (which answers every failure with the same 401) and `ctl signer test` (which says
// which step failed) run the very same checks. No controller code here: the CLI imports it too.
import { X509Certificate, type KeyObject } from 'node:crypto';
import { compactVerify } from 'jose';
import { JwksError, type JwksCache } from './jwks.js';

/**
 * Asymmetric algorithms only. Never `none`, and never HMAC: an HS256 token "signed" with a signer's public key
 * (which anyone can read) would otherwise verify. The key's type must also fit the algorithm (jose checks it).
 */
export const EXT_JWT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;

/** Which check refused a token, in the order they run. */
export type ExtJwtStep =
  | 'format'
  | 'algorithm'
  | 'kid'
  | 'keys'
  | 'signature'
  | 'issuer'
  | 'audience'
  | 'expiry'
  | 'not-yet-valid'
  | 'claim';

export class ExtJwtError extends Error {
  override name = 'ExtJwtError';
  constructor(
    readonly step: ExtJwtStep,
    message: string,
  ) {
    super(message);
  }
}

/** What validation needs of a signer (its management read model has these fields). */
export interface ExtJwtSignerKeys {
  name?: string;
  issuer: string;
  audience?: string | null;
  certPem?: string | null;
  kid?: string | null;
  jwksEndpoint?: string | null;
  claimsProperty?: string | null;
}

export interface ValidatedExtJwt {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  /** The value of the signer's claims property: an identity's id, or its externalId. */
  subject: string;
}

/** Header and claims of a compact JWS, read without verifying anything (to find the signer by `iss`). */
export function peekJwt(token: string): { header: Record<string, unknown>; claims: Record<string, unknown> } {
  const parts = token.trim().split('.');
  if (parts.length !== 3 || parts.some((p, i) => i < 2 && p === ''))
    throw new ExtJwtError('format', 'the token is not a JWT (three base64url parts separated by dots)');
  const json = (s: string, what: string) => {
    try {
      const value = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as unknown;
      if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
      return value as Record<string, unknown>;
    } catch {
      throw new ExtJwtError('format', `the token's ${what} is not a base64url JSON object`);
    }
  };
  return { header: json(parts[0], 'header'), claims: json(parts[1], 'payload') };
}

/** The value at a claims property: `sub`, or a JSON pointer such as `/sub` or `/ext/ziti_id` (OpenZiti's spelling). */
export function claimAt(claims: Record<string, unknown>, property: string): unknown {
  if (!property.startsWith('/')) return claims[property];
  let value: unknown = claims;
  for (const raw of property.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!value || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * The public key the token's kid names: the signer's certificate (whose kid must match), or the key of that kid
 * in its key set (fetched again, within the cache's limits, when the kid is unknown: that is how rotation works).
 */
async function keyFor(signer: ExtJwtSignerKeys, kid: string, jwks: JwksCache): Promise<KeyObject> {
  if (signer.certPem) {
    if (kid !== signer.kid)
      throw new ExtJwtError('kid', `the token's kid '${kid}' is not the signer's kid '${signer.kid ?? ''}'`);
    try {
      return new X509Certificate(signer.certPem).publicKey;
    } catch {
      throw new ExtJwtError('keys', "the signer's certificate cannot be read");
    }
  }
  if (!signer.jwksEndpoint) throw new ExtJwtError('keys', 'the signer has neither a certificate nor a key set');
  let key: KeyObject | undefined;
  try {
    key = await jwks.key(signer.jwksEndpoint, kid);
  } catch (err) {
    if (err instanceof JwksError) throw new ExtJwtError('keys', err.message);
    throw err;
  }
  if (!key) throw new ExtJwtError('kid', `the signer's key set has no key with kid '${kid}'`);
  return key;
}

/**
 * Every check of item 9, in order: format, algorithm (asymmetric allow-list), kid, signature, iss, aud, exp
 * (required), nbf, and the claims property (a non-empty string). Times are compared with `now`, without leeway
 * beyond `toleranceSeconds`. Throws ExtJwtError naming the failed step.
 */
export async function validateExtJwt(
  token: string,
  signer: ExtJwtSignerKeys,
  opts: { jwks: JwksCache; now: Date; toleranceSeconds?: number },
): Promise<ValidatedExtJwt> {
  const compact = token.trim();
  const { header } = peekJwt(compact);
  const alg = header.alg;
  if (typeof alg !== 'string' || !(EXT_JWT_ALGORITHMS as readonly string[]).includes(alg)) {
    throw new ExtJwtError(
      'algorithm',
      `the token's algorithm '${String(alg)}' is not accepted (only ${EXT_JWT_ALGORITHMS.join(', ')})`,
    );
  }
  if (header.crit !== undefined)
    throw new ExtJwtError('format', 'the token has critical header parameters this controller does not understand');
  const kid = header.kid;
  if (typeof kid !== 'string' || kid === '') throw new ExtJwtError('kid', 'the token has no kid header');
  const key = await keyFor(signer, kid, opts.jwks);
  let payload: Uint8Array;
  try {
    ({ payload } = await compactVerify(compact, key, { algorithms: [alg] }));
  } catch (err) {
    throw new ExtJwtError(
      'signature',
      `the signature does not verify with the signer's key (${(err as Error).message})`,
    );
  }
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(Buffer.from(payload).toString('utf8')) as Record<string, unknown>;
    if (!claims || typeof claims !== 'object' || Array.isArray(claims)) throw new Error('not an object');
  } catch {
    throw new ExtJwtError('format', "the token's payload is not a JSON object");
  }
  if (claims.iss !== signer.issuer)
    throw new ExtJwtError(
      'issuer',
      `the token's iss '${String(claims.iss)}' is not the signer's issuer '${signer.issuer}'`,
    );
  if (signer.audience) {
    const aud = claims.aud;
    const ok = typeof aud === 'string' ? aud === signer.audience : Array.isArray(aud) && aud.includes(signer.audience);
    if (!ok)
      throw new ExtJwtError(
        'audience',
        `the token's aud ${JSON.stringify(aud ?? null)} does not name the signer's audience '${signer.audience}'`,
      );
  }
  const nowSeconds = opts.now.getTime() / 1000;
  const tolerance = opts.toleranceSeconds ?? 0;
  if (typeof claims.exp !== 'number')
    throw new ExtJwtError('expiry', 'the token has no exp claim (tokens without an expiry are refused)');
  if (claims.exp + tolerance <= nowSeconds)
    throw new ExtJwtError('expiry', `the token expired at ${new Date(claims.exp * 1000).toISOString()}`);
  if (claims.nbf !== undefined) {
    if (typeof claims.nbf !== 'number') throw new ExtJwtError('not-yet-valid', "the token's nbf claim is not a number");
    if (claims.nbf - tolerance > nowSeconds)
      throw new ExtJwtError(
        'not-yet-valid',
        `the token is not valid before ${new Date(claims.nbf * 1000).toISOString()}`,
      );
  }
  const property = signer.claimsProperty || 'sub';
  const subject = claimAt(claims, property);
  if (typeof subject !== 'string' || subject === '')
    throw new ExtJwtError('claim', `the token has no string claim '${property}' to match an identity with`);
  return { header, claims, subject };
}

/** An auth policy as far as ext-JWT primary logins go: as the controller stores it and the management API serves it. */
export interface ExtJwtPolicy {
  primary?: { extJwt?: { allowed?: boolean; allowedSigners?: string[] } };
}

/**
 * Why the policy refuses primary ext-JWT logins with this signer: ext-JWT not allowed at all, or a list of allowed
 * signers without it (an empty list allows every signer). Undefined when it accepts them.
 */
export function signerRefusal(policy: ExtJwtPolicy | undefined, signerId: string): string | undefined {
  const extJwt = policy?.primary?.extJwt;
  if (extJwt?.allowed !== true) return 'does not allow ext-jwt logins';
  const signers = extJwt.allowedSigners ?? [];
  if (signers.length > 0 && !signers.includes(signerId)) return 'allows other signers only';
  return undefined;
}

/** Whether the policy allows ext-JWT primary authentication with this signer. */
export function allowsSigner(policy: ExtJwtPolicy | undefined, signerId: string): boolean {
  return signerRefusal(policy, signerId) === undefined;
}
