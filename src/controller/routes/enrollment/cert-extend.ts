// Certificate extension by the identity itself (the states table's "client certificate" rows): a CSR made with the
// session's certificate brings a new certificate; the old one keeps working until the identity proves it received
// the new one (extend-verify), which then replaces it.
import { X509Certificate } from 'node:crypto';
import { sha1FingerprintHex } from '../../pki/fingerprint.js';
import { ApiError, notFound } from '../../../protocol/errors.js';
import { acceptCsr, csrStep, identitySpiffeId, issueClientCert } from '../../pki/issue.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import type { Row } from '../../store/repository.js';
import { enrollBody } from './body.js';
import type { Responses, Success } from '../../server/responses.js';

const EXTEND_BODY = { type: 'object', properties: {}, additionalProperties: false };

/** The caller's own cert authenticator that this controller issued, and that the session was opened with. */
async function extendable(rt: Runtime, ctx: Ctx): Promise<Row> {
  const row = await rt.store.repo('authenticator').find(ctx.params.id);
  if (!row || row.identityId !== ctx.principal!.identityId) throw notFound('authenticator', ctx.params.id);
  if (row.method !== 'cert' || row.isIssuedByNetwork !== true) {
    throw new ApiError('CAN_NOT_UPDATE_AUTHENTICATOR', {
      message: 'only certificates this controller issued can be extended',
    });
  }
  if (ctx.principal!.authenticatorId !== row.id) {
    throw new ApiError('UNAUTHORIZED', {
      message: 'a certificate is extended from a session opened with that certificate',
    });
  }
  return row;
}

async function extend(rt: Runtime, ctx: Ctx) {
  const row = await extendable(rt, ctx);
  const body = enrollBody(rt, EXTEND_BODY, await ctx.json(), ['clientCertCsr']) as { clientCertCsr?: string };
  if (!body.clientCertCsr)
    throw new ApiError('COULD_NOT_PROCESS_CSR', {
      message: 'clientCertCsr is required',
      cause: { field: 'clientCertCsr', reason: 'is required', value: '' },
    });
  const csrPem = body.clientCertCsr;
  const issued = csrStep('clientCertCsr', () =>
    issueClientCert(rt.pki, acceptCsr(csrPem), {
      uris: [identitySpiffeId(rt.pki.trustDomain, row.identityId as string)],
      now: ctx.now,
    }),
  );
  await rt.writes.update(
    'authenticator',
    row,
    { pendingCertPem: issued.chainPem, pendingFingerprint: issued.fingerprint },
    ctx.now.toISOString(),
  );
  return { data: { ca: rt.pki.caBundlePem, clientCert: issued.chainPem } };
}

async function verifyExtension(rt: Runtime, ctx: Ctx) {
  const row = await extendable(rt, ctx);
  const body = enrollBody(rt, EXTEND_BODY, await ctx.json(), ['clientCert']) as { clientCert?: string };
  if (!row.pendingFingerprint)
    throw new ApiError('INVALID_CLIENT_CERT', { message: 'no extended certificate awaits verification: extend first' });
  let fingerprint: string | undefined;
  try {
    fingerprint = body.clientCert ? sha1FingerprintHex(body.clientCert) : undefined;
  } catch {
    fingerprint = undefined;
  }
  if (fingerprint !== row.pendingFingerprint)
    throw new ApiError('INVALID_CLIENT_CERT', { message: 'clientCert is not the certificate the extension issued' });
  // Whether the holder made a new key (what request-extend's rollKeys asks for): the two certificates' keys differ.
  const spki = (pem: string) => new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
  const rolledKeys = !spki(row.certPem as string).equals(spki(row.pendingCertPem as string));
  await rt.writes.update(
    'authenticator',
    row,
    // The extension asked for (request-extend) has happened: the request is answered.
    {
      certPem: row.pendingCertPem,
      fingerprint: row.pendingFingerprint,
      pendingCertPem: null,
      pendingFingerprint: null,
      isExtendRequested: false,
      isKeyRollRequested: false,
      extendRequestedAt: null,
      lastExtendRolledKeys: rolledKeys,
    },
    ctx.now.toISOString(),
  );
  return { data: {} };
}

const REQUEST_EXTEND_BODY = {
  type: 'object',
  properties: { rollKeys: { type: 'boolean' } },
  additionalProperties: false,
};

/**
 * `POST /authenticators/{id}/request-extend` (admin): flags a certificate authenticator for early extension, and
 * optionally a new key. The holder learns of it from its API session (isCertExtendRequested, isCertKeyRollRequested)
 * and from its authenticator; clients that cannot extend may ignore it. Only certificates can be extended (403).
 */
async function requestExtend(rt: Runtime, ctx: Ctx) {
  const row = await rt.store.repo('authenticator').get(ctx.params.id);
  const text = await ctx.text();
  const body = rt.validators.custom(REQUEST_EXTEND_BODY, text.trim() === '' ? {} : await ctx.json()) as {
    rollKeys?: boolean;
  };
  if (row.method !== 'cert')
    throw new ApiError('FORBIDDEN', {
      message: `authenticator ${row.id} is not a certificate authenticator: only certificates can be extended`,
    });
  await rt.writes.update(
    'authenticator',
    row,
    { isExtendRequested: true, isKeyRollRequested: body.rollKeys === true, extendRequestedAt: ctx.now.toISOString() },
    ctx.now.toISOString(),
  );
  return { data: {} };
}

export function routes(rt: Runtime): Route[] {
  return [
    {
      method: 'POST',
      path: '/authenticators/{id}/request-extend',
      api: 'management',
      access: 'admin',
      operationId: 'requestExtendAuthenticator',
      responds: (r) => r.empty('done (authenticator)'),
      handler: (ctx) => requestExtend(rt, ctx),
    },
    {
      method: 'POST',
      path: '/current-identity/authenticators/{id}/extend',
      api: 'both',
      access: 'session',
      responds: extendAnswer,
      handler: (ctx) => extend(rt, ctx),
    },
    {
      method: 'POST',
      path: '/current-identity/authenticators/{id}/extend-verify',
      api: 'both',
      access: 'session',
      responds: (r) => r.empty('the new certificate replaces the old one'),
      handler: (ctx) => verifyExtension(rt, ctx),
    },
  ];
}

function extendAnswer(r: Responses): Success {
  return r.data('identityExtendEnrollmentEnvelope', 'the new client certificate and the CA bundle', {
    type: 'object',
    properties: { ca: { type: 'string' }, clientCert: { type: 'string' } },
    required: ['ca', 'clientCert'],
  });
}
