// A third-party CA's `externalIdClaim`: the rule that reads an identity's externalId out of a certificate the CA
// issued, so that such a certificate logs in the identity with that externalId without a cert authenticator of
// its own (the CA's certificates are then the credential; the identity is found by what they say). The rule, as
// OpenZiti's: a location (the subject common name, the SAN URIs or the SAN e-mail addresses) gives candidate
// values; a matcher keeps some (ALL, PREFIX and SUFFIX strip what they matched; SCHEME keeps URIs of a scheme);
// a parser turns each into claims (NONE: itself, SPLIT: its parts around a separator); `index` picks one claim.
import { ApiError } from '../../protocol/errors.js';
import { children, decodeOid, readOne, TAG } from '../../protocol/der.js';
import { EXTENSION_OIDS, readCertificate } from '../../protocol/x509.js';

export const CLAIM_LOCATIONS = ['COMMON_NAME', 'SAN_URI', 'SAN_EMAIL'] as const;
export const CLAIM_MATCHERS = ['ALL', 'PREFIX', 'SUFFIX', 'SCHEME'] as const;
export const CLAIM_PARSERS = ['NONE', 'SPLIT'] as const;

export interface ExternalIdClaim {
  location: (typeof CLAIM_LOCATIONS)[number];
  matcher: (typeof CLAIM_MATCHERS)[number];
  matcherCriteria: string | null;
  parser: (typeof CLAIM_PARSERS)[number];
  parserCriteria: string | null;
  index: number;
}

const bad = (member: string, reason: string, value: unknown) =>
  new ApiError('COULD_NOT_VALIDATE', {
    message: `externalIdClaim.${member} ${reason}`,
    cause: { field: `externalIdClaim.${member}`, reason, value: value === undefined ? '' : (value as string) },
  });

const MAX_CRITERIA = 1024;

/**
 * A claim body checked whole (every member of its type, combinations OpenZiti refuses refused here too, each a 400
 * naming the member) and stored complete: absent criteria become null, an absent index 0. null clears the claim.
 */
export function normalizeExternalIdClaim(value: unknown): ExternalIdClaim | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw bad('', 'must be an object', JSON.stringify(value));
  const v = value as Record<string, unknown>;
  const known = ['location', 'matcher', 'matcherCriteria', 'parser', 'parserCriteria', 'index'];
  const unknown = Object.keys(v).find((k) => !known.includes(k));
  if (unknown) throw bad(unknown, 'is not a member of externalIdClaim', String(v[unknown]));
  const oneOf = <T extends string>(member: string, values: readonly T[]): T => {
    const x = v[member];
    if (typeof x !== 'string' || !values.includes(x as T)) throw bad(member, `must be one of ${values.join(', ')}`, x);
    return x as T;
  };
  const criteria = (member: string): string | null => {
    const x = v[member];
    if (x === undefined || x === null || x === '') return null;
    if (typeof x !== 'string' || x.length > MAX_CRITERIA || /[\r\n]/.test(x))
      throw bad(member, `must be a one-line string of at most ${MAX_CRITERIA} characters`, x);
    return x;
  };
  const location = oneOf('location', CLAIM_LOCATIONS);
  const matcher = oneOf('matcher', CLAIM_MATCHERS);
  const parser = oneOf('parser', CLAIM_PARSERS);
  const matcherCriteria = criteria('matcherCriteria');
  const parserCriteria = criteria('parserCriteria');
  const rawIndex = v.index ?? 0;
  if (typeof rawIndex !== 'number' || !Number.isInteger(rawIndex) || rawIndex < 0 || rawIndex > 1000)
    throw bad('index', 'must be an integer from 0 to 1000', rawIndex);
  // Which matchers apply where: URIs are matched by scheme, strings by their ends.
  const fits = location === 'SAN_URI' ? ['ALL', 'SCHEME'] : ['ALL', 'PREFIX', 'SUFFIX'];
  if (!fits.includes(matcher))
    throw bad('matcher', `must be one of ${fits.join(', ')} for location ${location}`, matcher);
  if (matcher !== 'ALL' && matcherCriteria === null)
    throw bad('matcherCriteria', `is required for matcher ${matcher}`, '');
  if (parser === 'SPLIT' && parserCriteria === null)
    throw bad('parserCriteria', 'is required for parser SPLIT (the separator)', '');
  return { location, matcher, matcherCriteria, parser, parserCriteria, index: rawIndex };
}

/**
 * The claim a stored CA has, if any. A CA without one reads back as null or as an empty object (the column's
 * default), and both mean the same: no claim.
 */
export function storedClaim(value: unknown): ExternalIdClaim | undefined {
  return (value as ExternalIdClaim | null)?.location ? (value as ExternalIdClaim) : undefined;
}

/** The values of one kind of a certificate's subject or SAN, decoded from its DER. */
function locate(der: Buffer, location: ExternalIdClaim['location']): string[] {
  const { subjectDer, extensions } = readCertificate(der);
  if (location === 'COMMON_NAME') {
    // subject: SEQUENCE of SET of {type, value}; a common name is 2.5.4.3 (several are possible, in order).
    const out: string[] = [];
    for (const rdn of children(readOne(subjectDer, TAG.SEQUENCE).content)) {
      for (const atv of children(rdn.content)) {
        const [type, value] = children(atv.content);
        if (decodeOid(type.content) === '2.5.4.3')
          out.push(value.content.toString(value.tag === 0x1e ? 'utf16le' : 'utf8'));
      }
    }
    // Go's x509 (and so OpenZiti) sees one common name, the last.
    return out.length > 0 ? [out[out.length - 1]] : [];
  }
  const san = extensions.get(EXTENSION_OIDS.subjectAltName);
  if (!san) return [];
  // GeneralName tags: [1] rfc822Name (e-mail), [6] uniformResourceIdentifier, both IA5String IMPLICIT.
  const wanted = location === 'SAN_EMAIL' ? 0x81 : 0x86;
  return children(readOne(san, TAG.SEQUENCE).content)
    .filter((n) => n.tag === wanted)
    .map((n) => n.content.toString('ascii'));
}

function uriScheme(value: string): string | undefined {
  return /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(value)?.[1].toLowerCase();
}

/**
 * The externalId a certificate (DER) carries by `claim`, or undefined when it carries none (no value at the
 * location, none matched, the index beyond the claims, or an empty claim): then the certificate is looked up by
 * its fingerprint as any other.
 */
export function externalIdOf(claim: ExternalIdClaim, der: Buffer): string | undefined {
  let values: string[];
  try {
    values = locate(der, claim.location);
  } catch {
    return undefined;
  }
  const matched: string[] = [];
  for (const value of values) {
    const criteria = claim.matcherCriteria ?? '';
    if (claim.matcher === 'ALL') matched.push(value);
    else if (claim.matcher === 'SCHEME' && uriScheme(value) === criteria.toLowerCase()) matched.push(value);
    else if (claim.matcher === 'PREFIX' && value.startsWith(criteria)) matched.push(value.slice(criteria.length));
    else if (claim.matcher === 'SUFFIX' && value.endsWith(criteria))
      matched.push(value.slice(0, value.length - criteria.length));
  }
  const claims = matched.flatMap((m) => (claim.parser === 'SPLIT' ? m.split(claim.parserCriteria ?? '') : [m]));
  const picked = claims[claim.index];
  return picked ? picked : undefined;
}
