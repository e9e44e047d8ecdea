// The enrollment routes (wire-protocol section 6): they read the token, the body and the client certificate, and
// redeem through the model (src/controller/model/enrollment/redeem.ts).
import { ApiError, invalidField } from '../../../protocol/errors.js';
import { password as passwordType, username as usernameType } from '../../../resources/common.js';
import { randomUUID, X509Certificate } from 'node:crypto';
import { peerCertificate } from './peer-certificate.js';
import {
  type ClientCertificate,
  enrollByCa,
  outstanding,
  redeemOtt,
  redeemOttca,
  redeemUpdb,
} from '../../model/enrollment/redeem.js';
import type { Runtime } from '../../runtime.js';
import { typeSchema } from '../../server/schemas.js';
import type { Ctx, Reply, Route } from '../../server/types.js';
import { redeemRouterToken, routerWithToken, type RouterWithToken } from '../../model/enrollment/router.js';
import { routerCsrs } from './router-enroll.js';
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
  const enrollment = await outstanding(rt, body.token, 'ott', ctx.now);
  return { data: await redeemOtt(rt, enrollment, body.clientCsr, ctx.now) };
}

async function ottcaEnroll(rt: Runtime, ctx: Ctx): Promise<Reply> {
  const body = enrollBody(rt, OTT_BODY, await ctx.json(), ['clientCsr']) as { token: string };
  const enrollment = await outstanding(rt, body.token, 'ottca', ctx.now);
  await redeemOttca(rt, enrollment, clientCertificate(ctx, 'ottca enrollment'), ctx.now);
  return { data: {} };
}

async function updbEnroll(rt: Runtime, ctx: Ctx): Promise<Reply> {
  const token = requiredToken(ctx);
  const found = await outstanding(rt, token, 'updb', ctx.now);
  const body = rt.validators.custom(UPDB_BODY, await ctx.json()) as { password: string };
  return { data: await redeemUpdb(rt, found, body.password, ctx.now) };
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
  if (found.method === 'ott')
    return { data: await redeemOtt(rt, found, body.clientCsr as string | undefined, ctx.now) };
  if (found.method === 'ottca') {
    await redeemOttca(rt, found, clientCertificate(ctx, 'ottca enrollment'), ctx.now);
    return { data: {} };
  }
  if (typeof body.password !== 'string')
    throw invalidField('password', 'password in body is required for updb enrollment', '');
  return { data: await redeemUpdb(rt, found, body.password, ctx.now) };
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
  return { data: await redeemRouterToken(rt, token, router, method, routerCsrs(body), { now: ctx.now }) };
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

const CA_BODY = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1, maxLength: 100 } },
  additionalProperties: false,
};

/** The client certificate of the TLS connection, parsed, or a 400 saying why there is none. */
function clientCertificate(ctx: Ctx, why: string): ClientCertificate {
  const der = peerCertificate(ctx);
  if (!der)
    throw new ApiError('INVALID_CLIENT_CERT', { message: `${why} needs the client certificate on the TLS connection` });
  try {
    return { der, cert: new X509Certificate(der) };
  } catch {
    throw new ApiError('INVALID_CLIENT_CERT', { message: 'the client certificate cannot be read' });
  }
}

/** `POST /enroll/ca` (CA auto enrollment), with an optional `{name}` and the client certificate. */
async function caEnroll(rt: Runtime, ctx: Ctx): Promise<Reply> {
  const text = await ctx.text();
  const body = rt.validators.custom(CA_BODY, text.trim() === '' ? {} : await ctx.json()) as { name?: string };
  await enrollByCa(rt, clientCertificate(ctx, 'CA auto enrollment'), body.name, ctx.now);
  return { data: {} };
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
