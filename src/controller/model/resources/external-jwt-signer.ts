// External JWT signers (wire-protocol section 7): the signer rules on every write, and what the management and
// client APIs serve of a signer (routes/management/external-jwt-signers.ts). Authentication with a signer's tokens
// (`method=ext-jwt`): src/controller/model/auth/ext-jwt.ts.
import { createHash, X509Certificate } from 'node:crypto';
import { invalidField } from '../../../protocol/errors.js';
import { pemBlocks } from '../../../protocol/pem.js';
import { CLIENT_VIEW_FIELDS } from '../../../resources/external-jwt-signer.js';
import { resource } from '../../../resources/index.js';
import type { Runtime, Write } from '../../runtime.js';
import type { Row } from '../../store/repository.js';
import type { AuthPolicyShape } from '../auth/auth-policy-rules.js';
import type { ResourceModel } from '../behaviour.js';
import { toWire } from '../present.js';

const signer = resource('external-jwt-signer');
/** What OpenZiti's Go model serves for a time it does not have (a JWKS signer's certificate validity). */
const ZERO_TIME = '0001-01-01T00:00:00.000Z';
/**
 * Read-model fields the Swagger types as (non-null) strings: served empty when the signer has none, as OpenZiti
 * does (it omits an empty enrollAttributeClaimsSelector).
 */
const EMPTY_WHEN_ABSENT = [
  'audience',
  'kid',
  'clientId',
  'externalAuthUrl',
  'commonName',
  'fingerprint',
  'enrollAttributeClaimsSelector',
] as const;
/**
 * A form that sends back the read model sends the "" and zero times the presenter served for what the signer does
 * not have; the generic echo rule compares with the stored value (none), so those are taken out here.
 */
export async function withoutServedBlanks(
  rt: Runtime,
  id: string,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const existing = await rt.store.repoFor(signer).get(id);
  const out = { ...body };
  for (const field of [...EMPTY_WHEN_ABSENT, 'notBefore', 'notAfter']) {
    const blank = field === 'notBefore' || field === 'notAfter' ? ZERO_TIME : '';
    if (signer.fields[field].readOnly && out[field] === blank && (existing[field] ?? null) === null) delete out[field];
  }
  return out;
}

/**
 * The one certificate of `certPem`, refused with a 400 on `certPem` unless it is exactly
 * one readable X.509 certificate.
 */
function certificateOf(pem: string): X509Certificate {
  const blocks = pemBlocks(pem);
  if (blocks.length !== 1 || blocks[0].label !== 'CERTIFICATE') {
    throw invalidField('certPem', 'certPem must hold exactly one PEM CERTIFICATE block', '<pem>');
  }
  try {
    return new X509Certificate(Buffer.from(blocks[0].base64, 'base64'));
  } catch (err) {
    throw invalidField('certPem', `certPem is not a readable X.509 certificate: ${(err as Error).message}`, '<pem>');
  }
}

/** The common name of a certificate subject (node renders it one attribute per line); empty when it has none. */
function commonName(cert: X509Certificate): string {
  return (
    cert.subject
      .split('\n')
      .find((line) => line.startsWith('CN='))
      ?.slice(3) ?? ''
  );
}

/**
 * JWKS must come over HTTPS: a key set fetched in clear text could be swapped by anyone on the path, and every
 * token it "verifies" with it. Plain HTTP is allowed to the local machine only (an identity provider under test).
 */
function checkJwksEndpoint(value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidField('jwksEndpoint', 'jwksEndpoint must be an absolute URL', value);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw invalidField('jwksEndpoint', 'jwksEndpoint must be an https URL (http only to localhost)', value);
  }
  if (url.username || url.password)
    throw invalidField('jwksEndpoint', 'jwksEndpoint must not carry credentials', value);
}

/** A JSON pointer (RFC 6901) once `/` is put in front, as OpenZiti reads a claims selector: `~` only as `~0`, `~1`. */
function checkSelector(field: string, selector: unknown): void {
  if (typeof selector === 'string' && /~(?![01])/.test(selector)) {
    throw invalidField(field, `${field} is not a JSON pointer: '~' must be followed by 0 or 1`, selector);
  }
}

/**
 * The enrollment settings on the signer as it will be, as OpenZiti checks them on every write: the enrollment auth
 * policy exists and allows what the enabled enrollments make (certificate logins; ext-JWT logins), and both claims
 * selectors are JSON pointers. Every refusal names the field (400).
 */
async function checkEnrollment(rt: Runtime, after: Record<string, unknown>): Promise<void> {
  checkSelector('enrollNameClaimsSelector', after.enrollNameClaimsSelector);
  checkSelector('enrollAttributeClaimsSelector', after.enrollAttributeClaimsSelector);
  const policyId = (after.enrollAuthPolicyId as string | null | undefined) || 'default';
  const policy = (await rt.store.repo('auth-policy').find(policyId)) as unknown as AuthPolicyShape | undefined;
  if (!policy) throw invalidField('enrollAuthPolicyId', 'the auth policy could not be found', policyId);
  if (after.enrollToTokenEnabled === true && policy.primary.extJwt.allowed !== true) {
    const reason = 'primary external jwt authentication on auth policy is disabled';
    throw invalidField('enrollAuthPolicyId', reason, policyId);
  }
  if (after.enrollToCertEnabled === true && policy.primary.cert.allowed !== true) {
    throw invalidField('enrollAuthPolicyId', 'primary certificate authentication on auth policy is disabled', policyId);
  }
}

/**
 * The signer rules on the entity as it will be (a patch over the stored row): exactly one of certPem or
 * jwksEndpoint, kid with certPem, a certificate that parses, the enrollment settings; the certificate's facts are
 * derived here.
 */
async function beforeWrite(rt: Runtime, w: Write): Promise<Record<string, unknown>> {
  const values = { ...w.values };
  const after: Record<string, unknown> = w.verb === 'patch' ? { ...w.existing, ...values } : values;
  const certPem = (after.certPem ?? null) as string | null;
  const jwks = (after.jwksEndpoint ?? null) as string | null;
  if (certPem === null && jwks === null) throw invalidField('certPem', 'jwksEndpoint or certPem is required', null);
  if (certPem !== null && jwks !== null) {
    const field = 'jwksEndpoint' in values && values.jwksEndpoint !== null ? 'jwksEndpoint' : 'certPem';
    throw invalidField(
      field,
      'only one of jwksEndpoint or certPem may be defined',
      field === 'certPem' ? '<pem>' : jwks,
    );
  }
  if (certPem !== null && !after.kid) throw invalidField('kid', 'kid is required with certPem', after.kid ?? null);
  if (jwks !== null && 'jwksEndpoint' in values) checkJwksEndpoint(jwks);
  await checkEnrollment(rt, after);
  if ('certPem' in values) {
    if (certPem === null) {
      Object.assign(values, { fingerprint: null, commonName: null, notBefore: null, notAfter: null });
    } else {
      const cert = certificateOf(certPem);
      Object.assign(values, {
        fingerprint: createHash('sha1').update(cert.raw).digest('hex'),
        commonName: commonName(cert),
        notBefore: new Date(cert.validFrom).toISOString(),
        notAfter: new Date(cert.validTo).toISOString(),
      });
    }
  }
  return values;
}

/** The management read model: what the Swagger requires is always there (empty or zero where the signer has none). */
function presentSigners(rows: Row[]): Record<string, unknown>[] {
  return rows.map((row) => {
    const out = toWire(signer, row);
    for (const field of EMPTY_WHEN_ABSENT) out[field] ??= '';
    out.notBefore ??= ZERO_TIME;
    out.notAfter ??= ZERO_TIME;
    return out;
  });
}

/** A signer as the client API's anonymous list shows it: only what a login page needs to offer it. */
export function clientView(row: Row): Record<string, unknown> {
  const full = presentSigners([row])[0];
  const out: Record<string, unknown> = {
    id: full.id,
    createdAt: full.createdAt,
    updatedAt: full.updatedAt,
    tags: full.tags,
    _links: full._links,
  };
  for (const field of CLIENT_VIEW_FIELDS) out[field] = full[field];
  return out;
}

export const model: ResourceModel = {
  resource: 'external-jwt-signer',
  hooks: { beforeWrite },
  present: (rows) => presentSigners(rows),
};
