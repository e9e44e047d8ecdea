// Enrollment with an external JWT (OpenZiti's `POST /enroll/token`): a token of an external signer that allows it
// creates the identity the token names, with no enrollment made beforehand. With a CSR in the body the identity gets
// a certificate (the signer's enrollToCertEnabled); without, it is made to log in with the signer's tokens
// (enrollToTokenEnabled). The signer's enroll* fields say which claims name the identity and give its attributes,
// and which auth policy it gets.
import { ApiError } from '../../../protocol/errors.js';
import { allowsSigner, claimAt, ExtJwtError, peekJwt } from '../../../protocol/ext-jwt.js';
import { resource } from '../../../resources/index.js';
import { DEFAULT_ENROLL_NAME_CLAIMS_SELECTOR } from '../../../resources/external-jwt-signer.js';
import { acceptCsr, csrStep, identitySpiffeId, issueClientCert } from '../../pki/issue.js';
import type { Runtime } from '../../runtime.js';
import { newId, type Row } from '../../store/repository.js';
import type { AuthPolicyShape } from '../auth/auth-policy-rules.js';
import { validateSignerToken } from '../auth/ext-jwt.js';

const identity = resource('identity');

/** Every reason a token is not one to enroll with: one answer, the reason in the log only (as OpenZiti). */
export function invalidToken(rt: Runtime, why: string): ApiError {
  rt.log(`token enrollment refused: ${why}`);
  const message = 'The enrollment token is not valid: it is not a valid token of an enabled external JWT signer';
  return new ApiError('INVALID_ENROLLMENT_TOKEN', { message });
}

function notAllowed(rt: Runtime, why: string): ApiError {
  rt.log(`token enrollment refused: ${why}`);
  const message = `The configuration does not allow this enrollment: ${why}`;
  return new ApiError('INVALID_ENROLLMENT_NOT_ALLOWED', { message });
}

/** A selector as OpenZiti reads it: a JSON pointer, `/` put in front when it has none (`sub` is `/sub`). */
const pointer = (selector: string) => (selector.startsWith('/') ? selector : `/${selector}`);

/** The role attributes a token gives: a string claim is one, an array of strings each; absent or null, none. */
function attributesOf(claims: Record<string, unknown>, selector: string | null): string[] | undefined {
  if (!selector) return [];
  const value = claimAt(claims, pointer(selector));
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value === '' ? [] : [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.filter((v) => v !== '');
  return undefined;
}

/**
 * The signer of the token: the one `named` (the `ziti-token-issuer-id` header), or else the one whose issuer is the
 * token's `iss`; enabled either way.
 */
async function signerOf(rt: Runtime, token: string, named: string | undefined): Promise<Row> {
  const signers = rt.store.repo('external-jwt-signer');
  let signer: Row | undefined;
  if (named !== undefined) signer = await signers.find(named);
  else {
    const { claims } = peekJwt(token);
    signer = typeof claims.iss === 'string' ? await signers.findOne({ issuer: claims.iss }) : undefined;
  }
  if (!signer) {
    throw invalidToken(rt, named !== undefined ? `no signer has the id ${named}` : "no signer has the token's issuer");
  }
  if (signer.enabled !== true) throw invalidToken(rt, `the signer ${signer.name as string} is disabled`);
  return signer;
}

/** What the token says of the identity to make: its external id, name and role attributes. */
async function claimsOf(rt: Runtime, token: string, signer: Row, now: Date) {
  const { claims, subject } = await validateSignerToken(rt, token, signer, now);
  const nameSelector = (signer.enrollNameClaimsSelector as string | null) || DEFAULT_ENROLL_NAME_CLAIMS_SELECTOR;
  const name = claimAt(claims, pointer(nameSelector));
  if (typeof name !== 'string' || name === '') throw invalidToken(rt, `the token has no name claim at ${nameSelector}`);
  const roleAttributes = attributesOf(claims, signer.enrollAttributeClaimsSelector as string | null);
  if (!roleAttributes) throw invalidToken(rt, 'the attribute claim is neither a string nor an array of strings');
  return { externalId: subject, name, roleAttributes };
}

/**
 * What the signer and its enrollment auth policy must allow: enrollment of this kind, and the kind of login the new
 * identity will use (certificates; or ext-JWT with this signer).
 */
async function checkAllowed(rt: Runtime, signer: Row, withCert: boolean): Promise<string> {
  const name = signer.name as string;
  if (withCert && signer.enrollToCertEnabled !== true) {
    throw notAllowed(rt, `the signer ${name} does not enroll to certificates`);
  }
  if (!withCert && signer.enrollToTokenEnabled !== true) {
    throw notAllowed(rt, `the signer ${name} does not enroll to tokens`);
  }
  const policyId = (signer.enrollAuthPolicyId as string | null) || 'default';
  const policy = (await rt.store.repo('auth-policy').find(policyId)) as unknown as AuthPolicyShape | undefined;
  if (!policy) throw notAllowed(rt, `the signer's enrollment auth policy ${policyId} does not exist`);
  if (withCert && policy.primary.cert.allowed !== true) {
    throw notAllowed(rt, `the auth policy ${policyId} does not allow certificates`);
  }
  if (!withCert && !allowsSigner(policy, signer.id)) {
    throw notAllowed(rt, `the auth policy ${policyId} does not allow ext-jwt logins with the signer ${name}`);
  }
  return policyId;
}

/**
 * Enrolls with an external JWT (`token`; its signer `named` by id, or found by the token's issuer) and, for a
 * certificate, a CSR. A token whose external id an identity has already is 409 ENROLLMENT_IDENTITY_ALREADY_ENROLLED.
 * Answers the certificate chain and the CA bundle, or nothing when the identity logs in with tokens.
 */
export async function enrollWithToken(
  rt: Runtime,
  { token, named }: { token: string; named: string | undefined },
  clientCsr: string | undefined,
  at: Date,
): Promise<{ cert: string; ca: string } | Record<string, never>> {
  let claimed: Awaited<ReturnType<typeof claimsOf>>;
  let signer: Awaited<ReturnType<typeof signerOf>>;
  try {
    signer = await signerOf(rt, token, named);
    claimed = await claimsOf(rt, token, signer, at);
  } catch (err) {
    if (err instanceof ExtJwtError) throw invalidToken(rt, `${err.step}: ${err.message}`);
    throw err;
  }
  if (await rt.store.repo('identity').exists({ externalId: claimed.externalId })) {
    throw new ApiError('ENROLLMENT_IDENTITY_ALREADY_ENROLLED', {
      message: 'The token supplied for this enrollment already has a matching identity, cannot enroll a new identity',
    });
  }
  const csr = clientCsr?.trim() ? clientCsr : undefined;
  const authPolicyId = await checkAllowed(rt, signer, csr !== undefined);
  // Held to the identity's own bounds: a claim may be longer or odder than a name may be (400 naming the field).
  const values = rt.validators.body(identity, 'create', {
    name: claimed.name,
    type: 'Default',
    isAdmin: false,
    roleAttributes: claimed.roleAttributes,
    externalId: claimed.externalId,
    authPolicyId,
  });
  const id = newId();
  const uris = [identitySpiffeId(rt.pki.trustDomain, id)];
  const issue = (pem: string) => issueClientCert(rt.pki, acceptCsr(pem), { uris, now: at });
  const issued = csr === undefined ? undefined : csrStep('clientCsr', () => issue(csr));
  const now = at.toISOString();
  await rt.store.tx(async () => {
    await rt.writes.insert(identity.name, values, { id, now });
    if (!issued) return;
    const authenticator = { identityId: id, method: 'cert', certPem: issued.chainPem, fingerprint: issued.fingerprint };
    await rt.writes.insert('authenticator', { ...authenticator, isIssuedByNetwork: true }, { now });
  });
  return issued ? { cert: issued.chainPem, ca: rt.pki.caBundlePem } : {};
}
