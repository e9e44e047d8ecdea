// Redeeming an enrollment (wire-protocol section 6): the one-time token of an ott enrollment and a CSR become a
// certificate signed by the controller's intermediate CA and a cert authenticator; the token of a updb enrollment
// and a password become a updb authenticator. The enrollment goes in the same transaction, so a token is
// redeemed at most once, even by two requests racing with it.
import { ApiError, invalidField } from '../../../protocol/errors.js';
import { password as passwordType, username as usernameType } from '../../../resources/common.js';
import { randomUUID, X509Certificate } from 'node:crypto';
import { sha1FingerprintOfDer } from '../../pki/fingerprint.js';
import { peerCertificate } from './cert-auth.js';
import { commonName, signedByCa } from '../../model/resources/ca.js';
import { externalIdOf, storedClaim } from '../../pki/external-id.js';
import type { Runtime } from '../../runtime.js';
import { acceptCsr, csrStep, identitySpiffeId, issueClientCert } from '../../pki/issue.js';
import { typeSchema } from '../../server/schemas.js';
import type { Ctx, Reply, Route } from '../../server/types.js';
import { newId, type Row } from '../../store/repository.js';
import { redeemRouterToken, routerCsrs, routerWithToken, type RouterWithToken } from './router-enroll.js';
import { checkPasswordRules } from '../../model/auth/auth-policy-rules.js';
import { enrollBody } from './body.js';
import type { Responses, Success } from '../../server/responses.js';
import { certificatesAnswer } from './certificates-answer.js';

const OTT_BODY = {
  type: 'object',
  properties: { token: { type: 'string', minLength: 1, maxLength: 100 } },
  required: ['token'],
  additionalProperties: false,
};

const UPDB_BODY = {
  type: 'object',
  properties: { username: typeSchema(usernameType), password: typeSchema(passwordType) },
  required: ['password'],
  additionalProperties: false,
};

/** The JSON body of the generic `/enroll` (OpenZiti's genericEnroll). */
const GENERIC_BODY = {
  type: 'object',
  properties: {
    username: typeSchema(usernameType),
    password: typeSchema(passwordType),
    name: { type: 'string' },
  },
  additionalProperties: false,
};

/** Media types whose body is the PEM CSR itself (the legacy SDK enrollment). */
const PEM_BODY_TYPES = ['', 'application/x-pem-file', 'application/pkcs7', 'text/plain'];

export function routes(rt: Runtime): Route[] {
  return [
    {
      method: 'POST',
      path: '/enroll',
      api: 'client',
      access: 'public',
      responds: (r) => certificatesAnswer(r, 'the issued client certificate chain and the CA bundle'),
      handler: (ctx) => genericEnroll(rt, ctx),
    },
    {
      method: 'POST',
      path: '/enroll/ott',
      api: 'client',
      access: 'public',
      responds: (r) => certificatesAnswer(r, 'the issued client certificate chain and the CA bundle'),
      handler: (ctx) => ottEnroll(rt, ctx),
    },
    {
      method: 'POST',
      path: '/enroll/ca',
      api: 'client',
      access: 'public',
      responds: (r) => r.empty('an identity was created for the client certificate'),
      handler: (ctx) => caEnroll(rt, ctx),
    },
    {
      method: 'POST',
      path: '/enroll/ottca',
      api: 'client',
      access: 'public',
      responds: (r) => r.empty("the client certificate is now the identity's"),
      handler: (ctx) => ottcaEnroll(rt, ctx),
    },
    {
      method: 'POST',
      path: '/enroll/updb',
      api: 'client',
      access: 'public',
      responds: updbAnswer,
      handler: (ctx) => updbEnroll(rt, ctx),
    },
    {
      method: 'GET',
      path: '/network-jwts',
      api: 'both',
      access: 'public',
      responds: networkJwtsAnswer,
      handler: () => networkJwts(rt),
    },
    // The keys that sign enrollment JWTs, as a bare JWK set (no envelope), for clients that verify tokens offline.
    {
      method: 'GET',
      path: '/enroll/jwks',
      api: 'client',
      access: 'public',
      responds: jwksAnswer,
      handler: async () => ({ raw: JSON.stringify(await rt.enrollmentSigner.jwks()), contentType: 'application/json' }),
    },
    {
      method: 'POST',
      path: '/enroll/challenge',
      api: 'client',
      access: 'public',
      operationId: 'enrollmentChallenge',
      responds: challengeAnswer,
      handler: (ctx) => enrollmentChallenge(rt, ctx),
    },
  ];
}

const CHALLENGE_BODY = {
  type: 'object',
  properties: {
    keyId: { type: 'string', minLength: 1, maxLength: 256 },
    nonce: { type: 'string', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' },
  },
  required: ['keyId', 'nonce'],
  additionalProperties: false,
};

/**
 * `POST /enroll/challenge`: proof that this controller holds the key that signs its enrollment JWTs. The client picks
 * a fresh UUID nonce and a kid (from the JWT's header or /enroll/jwks); the answer is the nonce signed with that
 * key, and the CA bundle (`caPool`) that the controller's certificate chains to. Not an envelope (as OpenZiti).
 */
async function enrollmentChallenge(rt: Runtime, ctx: Ctx): Promise<Reply> {
  const body = rt.validators.custom(CHALLENGE_BODY, await ctx.json()) as { keyId: string; nonce: string };
  const signed = rt.enrollmentSigner.signNonce(body.keyId, body.nonce);
  if (!signed) throw invalidField('keyId', 'is not the id of a key of this controller (see /enroll/jwks)', body.keyId);
  return { raw: JSON.stringify({ ...signed, caPool: rt.pki.caBundlePem }), contentType: 'application/json' };
}

/**
 * `GET /network-jwts`: a JWT that names this controller (its issuer) and is signed by its server certificate's key,
 * so that a client can learn whom to trust before it has any enrollment (`em: "network"`, no expiry).
 */
async function networkJwts(rt: Runtime): Promise<Reply> {
  const token = await rt.enrollmentSigner.signStatic({ em: 'network', jti: randomUUID() });
  return { data: [{ name: 'default', token }] };
}

async function ottEnroll(rt: Runtime, ctx: Ctx): Promise<Reply> {
  const body = enrollBody(rt, OTT_BODY, await ctx.json(), ['clientCsr']) as { token: string; clientCsr?: string };
  return redeemOtt(rt, ctx, await outstanding(rt, body.token, 'ott', ctx.now), body.clientCsr);
}

async function ottcaEnroll(rt: Runtime, ctx: Ctx): Promise<Reply> {
  const body = enrollBody(rt, OTT_BODY, await ctx.json(), ['clientCsr']) as { token: string };
  return redeemOttca(rt, ctx, await outstanding(rt, body.token, 'ottca', ctx.now));
}

async function updbEnroll(rt: Runtime, ctx: Ctx): Promise<Reply> {
  const token = requiredToken(ctx);
  const found = await outstanding(rt, token, 'updb', ctx.now);
  const body = rt.validators.custom(UPDB_BODY, await ctx.json()) as { password: string };
  return redeemUpdb(rt, ctx, found, body.password);
}

/**
 * `POST /enroll?method=ott&token=...`: the method named by the token (a `method` given must match it). The body is
 * the PEM CSR itself, or with `application/json` a genericEnroll document.
 */
async function genericEnroll(rt: Runtime, ctx: Ctx): Promise<Reply> {
  const token = requiredToken(ctx);
  const method = ctx.query.get('method') || undefined;
  // Router tokens live on the router (erott, trott): the routers' own enrollment sends its CSR pair here as JSON.
  const routerMethod = method === 'erott' || method === 'trott';
  const router = routerMethod || method === undefined ? await routerWithToken(rt, token) : undefined;
  if (routerMethod || router) return genericRouterEnroll(rt, ctx, token, router, method);
  const found = await outstanding(rt, token, method, ctx.now);
  const type = (ctx.req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  let body: Record<string, unknown>;
  if (type === 'application/json')
    body = enrollBody(rt, GENERIC_BODY, await ctx.json(), ['clientCsr', 'serverCertCsr', 'certCsr']);
  else if (PEM_BODY_TYPES.includes(type)) body = found.method === 'ott' ? { clientCsr: await ctx.text() } : {};
  else
    throw new ApiError('INVALID_CONTENT_TYPE', {
      message:
        `content type '${type}' is not accepted here: send the ` +
        'PEM CSR as application/x-pem-file or text/plain, or JSON',
    });
  if (!acceptsJson(ctx)) {
    throw new ApiError('UNSUPPORTED_MEDIA', { message: 'the enrollment answer is JSON: accept application/json' });
  }
  if (found.method === 'ott') return redeemOtt(rt, ctx, found, body.clientCsr as string | undefined);
  if (found.method === 'ottca') return redeemOttca(rt, ctx, found);
  if (typeof body.password !== 'string')
    throw invalidField('password', 'password in body is required for updb enrollment', '');
  return redeemUpdb(rt, ctx, found, body.password);
}

/** `POST /enroll?method=erott&token=...` with `{serverCertCsr, certCsr}`, as OpenZiti's routers enroll. */
async function genericRouterEnroll(
  rt: Runtime,
  ctx: Ctx,
  token: string,
  router: RouterWithToken | undefined,
  method: string | undefined,
): Promise<Reply> {
  const type = (ctx.req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json')
    throw new ApiError('INVALID_CONTENT_TYPE', {
      message: `a router enrolls with JSON ({serverCertCsr, certCsr}), not '${type}'`,
    });
  const body = enrollBody(rt, GENERIC_BODY, await ctx.json(), ['clientCsr', 'serverCertCsr', 'certCsr']);
  return redeemRouterToken(rt, ctx, token, router, method, routerCsrs(body));
}

function acceptsJson(ctx: Ctx): boolean {
  const accept = String(ctx.req.headers.accept ?? '').toLowerCase();
  return (
    accept === '' ||
    accept.split(',').some((part) => /^\s*(\*\/\*|application\/\*|application\/json)\s*(;|$)/.test(part))
  );
}

function requiredToken(ctx: Ctx): string {
  const token = ctx.query.get('token');
  if (!token) throw invalidField('token', 'token in query is required', '');
  return token;
}

/**
 * The enrollment a token stands for, if it may be redeemed now: unknown (or already used) tokens and tokens of
 * another method are refused before anything is read from the body, expired ones after.
 */
async function outstanding(rt: Runtime, token: string, method: string | undefined, now: Date): Promise<Row> {
  const found = await rt.store.repo('enrollment').findOne({ token });
  if (!found)
    throw new ApiError('INVALID_ENROLLMENT_TOKEN', {
      message: 'the enrollment token is unknown or has already been used',
    });
  if (method !== undefined && found.method !== method) {
    throw new ApiError('INVALID_ENROLL_METHOD', {
      message: `the token is for ${found.method} enrollment, not ${method}`,
    });
  }
  if (Date.parse(found.expiresAt as string) <= now.getTime()) {
    throw new ApiError('ENROLLMENT_EXPIRED', {
      message: `the enrollment expired at ${found.expiresAt}; an administrator can refresh it`,
    });
  }
  return found;
}

/** Removes the enrollment and adds the authenticator in one transaction; a token used meanwhile is refused. */
async function replaceWithAuthenticator(
  rt: Runtime,
  enrollment: Row,
  values: Record<string, unknown>,
  now: Date,
): Promise<void> {
  await rt.store.tx(async () => {
    const removed = await rt.writes.deleteWhere('enrollment', { id: enrollment.id, token: enrollment.token as string });
    if (removed !== 1)
      throw new ApiError('INVALID_ENROLLMENT_TOKEN', { message: 'the enrollment token has already been used' });
    try {
      await rt.writes.insert(
        'authenticator',
        { identityId: enrollment.identityId, ...values },
        { now: now.toISOString() },
      );
    } catch (err) {
      // The one-password-per-identity index: the identity got a updb authenticator some other way meanwhile.
      if (err instanceof ApiError && (err.cause as { field?: string } | undefined)?.field === 'identityId') {
        throw new ApiError('MAX_AUTHENTICATOR_METHODS_REACHED', {
          message: 'the identity already has a username and password',
        });
      }
      throw err;
    }
  });
}

async function redeemOtt(rt: Runtime, ctx: Ctx, enrollment: Row, clientCsr: string | undefined): Promise<Reply> {
  if (clientCsr === undefined || clientCsr.trim() === '') {
    throw new ApiError('COULD_NOT_PROCESS_CSR', {
      message: 'no CSR was given: send a PEM certificate signing request',
      cause: { field: 'clientCsr', reason: 'is required', value: '' },
    });
  }
  const issued = csrStep('clientCsr', () =>
    issueClientCert(rt.pki, acceptCsr(clientCsr), {
      uris: [identitySpiffeId(rt.pki.trustDomain, enrollment.identityId as string)],
      now: ctx.now,
    }),
  );
  await replaceWithAuthenticator(
    rt,
    enrollment,
    { method: 'cert', certPem: issued.chainPem, fingerprint: issued.fingerprint, isIssuedByNetwork: true },
    ctx.now,
  );
  // `cert` is the client chain without the root (as OpenZiti); `ca` the bundle to trust the controller with.
  return { data: { cert: issued.chainPem, ca: rt.pki.caBundlePem } };
}

/**
 * ottca: the identity already exists and its enrollment names a CA; the client presents (on this TLS connection) a
 * certificate that CA issued, which becomes the identity's cert authenticator. The CA must be verified and allow
 * ottca enrollment; a certificate some authenticator already has is refused.
 */
async function redeemOttca(rt: Runtime, ctx: Ctx, enrollment: Row): Promise<Reply> {
  const { der, cert } = clientCertificate(ctx, 'ottca enrollment');
  const ca = enrollment.caId ? await rt.store.repo('ca').find(enrollment.caId as string) : undefined;
  if (ca?.isVerified !== true || ca.isOttCaEnrollmentEnabled !== true) {
    throw new ApiError('ENROLLMENT_CA_NOT_VALID', {
      message: "the enrollment's CA is missing, unverified, or does not allow ottca enrollment",
    });
  }
  if (!signedByCa(ca, cert))
    throw new ApiError('ENROLLMENT_CA_NOT_VALID', {
      message: "the client certificate was not issued by the enrollment's CA",
    });
  const fingerprint = sha1FingerprintOfDer(der);
  if (await rt.store.repo('authenticator').exists({ method: 'cert', fingerprint })) throw new ApiError('CERT_IN_USE');
  await replaceWithAuthenticator(
    rt,
    enrollment,
    { method: 'cert', certPem: cert.toString(), fingerprint, isIssuedByNetwork: false },
    ctx.now,
  );
  return { data: {} };
}

const CA_BODY = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1, maxLength: 100 } },
  additionalProperties: false,
};

/** The client certificate of the TLS connection, parsed, or a 400 saying why there is none. */
function clientCertificate(ctx: Ctx, why: string): { der: Buffer; cert: X509Certificate } {
  const der = peerCertificate(ctx);
  if (!der)
    throw new ApiError('INVALID_CLIENT_CERT', { message: `${why} needs the client certificate on the TLS connection` });
  try {
    return { der, cert: new X509Certificate(der) };
  } catch {
    throw new ApiError('INVALID_CLIENT_CERT', { message: 'the client certificate cannot be read' });
  }
}

/**
 * `POST /enroll/ca` (CA auto enrollment): no prior identity and no token. A certificate of a verified CA that allows
 * auto enrollment creates an identity named by the CA's `identityNameFormat`, with the CA's `identityRoles`, whose
 * cert authenticator is that certificate. A certificate already enrolled is 409. A CA with an externalIdClaim
 * instead gives the identity the externalId the certificate names and no authenticator (its certificates log it in
 * by that id, as OpenZiti); a certificate naming none is 400 MISSING_CERT_CLAIM, an id taken 409.
 */
async function caEnroll(rt: Runtime, ctx: Ctx): Promise<Reply> {
  const text = await ctx.text();
  const body = rt.validators.custom(CA_BODY, text.trim() === '' ? {} : await ctx.json()) as { name?: string };
  const { der, cert } = clientCertificate(ctx, 'CA auto enrollment');
  const cas = await rt.store.repo('ca').findAll({ isVerified: true, isAutoCaEnrollmentEnabled: true });
  const ca = cas.find((c) => signedByCa(c, cert));
  if (!ca)
    throw new ApiError('ENROLLMENT_NO_VALID_CAS', {
      message: 'no verified CA that allows auto enrollment issued the client certificate',
    });
  const fingerprint = sha1FingerprintOfDer(der);
  if (await rt.store.repo('authenticator').exists({ method: 'cert', fingerprint }))
    throw new ApiError('ENROLLMENT_IDENTITY_ALREADY_ENROLLED');
  const claim = storedClaim(ca.externalIdClaim);
  const externalId = claim ? externalIdOf(claim, der) : undefined;
  if (claim && externalId === undefined)
    throw new ApiError('MISSING_CERT_CLAIM', {
      message: "the client certificate carries no externalId by its CA's externalIdClaim",
    });
  if (externalId !== undefined && (await rt.store.repo('identity').exists({ externalId }))) {
    throw new ApiError('ENROLLMENT_IDENTITY_ALREADY_ENROLLED', {
      message: `an identity with the externalId the certificate names (${externalId}) exists already`,
    });
  }
  const identityId = newId();
  const cn = commonName(cert) ?? '';
  const format = (ca.identityNameFormat as string | null) ?? '[caName]-[commonName]';
  const symbols: Record<string, string> = {
    caName: ca.name as string,
    caId: ca.id,
    commonName: cn,
    requestedName: body.name ?? '',
    identityId,
  };
  const base =
    format
      .replace(/\[(caName|caId|commonName|requestedName|identityId)\]/g, (_, key: string) => symbols[key])
      .slice(0, 1000) || identityId;
  const now = ctx.now.toISOString();
  await rt.store.tx(async () => {
    // Names are unique: a taken one gets a number, as two devices of one CA may share a common name.
    let name = base;
    for (let n = 2; await rt.store.repo('identity').exists({ name }); n++) name = `${base}-${n}`;
    const roleAttributes = (ca.identityRoles as string[]) ?? [];
    const values = {
      name,
      type: 'Default',
      isAdmin: false,
      roleAttributes,
      ...(externalId !== undefined ? { externalId } : {}),
    };
    await rt.writes.insert('identity', values, { id: identityId, now });
    const certificate = { identityId, method: 'cert', certPem: cert.toString(), fingerprint, isIssuedByNetwork: false };
    if (externalId === undefined) await rt.writes.insert('authenticator', certificate, { now });
  });
  return { data: {} };
}

async function redeemUpdb(rt: Runtime, ctx: Ctx, enrollment: Row, password: string): Promise<Reply> {
  await checkPasswordRules(rt, enrollment.identityId as string, password);
  const hash = await rt.passwordChecks.run(() => rt.passwords.hash(password));
  // The username is the one the enrollment was made for: the enrolling client chooses only the password.
  await replaceWithAuthenticator(
    rt,
    enrollment,
    { method: 'updb', username: enrollment.username, password: hash },
    ctx.now,
  );
  return { data: { username: enrollment.username } };
}

const TEXT = { type: 'string' };

function updbAnswer(r: Responses): Success {
  const username = { type: 'object', properties: { username: TEXT } };
  return r.data('enrollUpdbEnvelope', 'the username the identity logs in with', username);
}

function networkJwtsAnswer(r: Responses): Success {
  return r.data('listNetworkJWTsEnvelope', 'JWTs naming this controller, signed by its certificate', {
    type: 'array',
    items: { type: 'object', properties: { name: TEXT, token: TEXT }, required: ['name', 'token'] },
  });
}

function jwksAnswer(r: Responses): Success {
  const list = { type: 'array', items: { type: 'object' } };
  const keys = { type: 'object', properties: { keys: list }, required: ['keys'] };
  return r.raw('the keys that sign enrollment JWTs (not an envelope)', keys);
}

function challengeAnswer(r: Responses): Success {
  return r.raw('the nonce signed by the key the kid names, and the CA bundle (not an envelope)', {
    type: 'object',
    properties: { algorithm: TEXT, caPool: TEXT, kid: TEXT, signature: TEXT },
    required: ['algorithm', 'caPool', 'kid', 'signature'],
  });
}
