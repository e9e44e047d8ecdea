import { randomUUID } from 'node:crypto';
import { sha1FingerprintOfDer } from '../../pki/fingerprint.js';
import { ApiError } from '../../../protocol/errors.js';
import { resource } from '../../../resources/index.js';
import { normalizeExternalIdClaim } from '../../pki/external-id.js';
import { commonName, pemCertificates, signedByCa } from '../../model/resources/ca.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import { created, validBody } from '../kit/crud.js';
import { standardRoute } from '../kit/describe.js';

const ca = resource('ca');

async function createCa(rt: Runtime, ctx: Ctx) {
  const body = await validBody(rt, ca, 'create', ctx);
  const certPem = body.certPem as string;
  const certs = pemCertificates(certPem);
  if (certs.length === 0)
    throw new ApiError('INVALID_CERT_PEM', {
      message: 'certPem holds no PEM certificate',
      cause: { field: 'certPem', reason: 'no PEM certificate', value: '<pem>' },
    });
  const notCa = certs.find((c) => !c.ca);
  if (notCa)
    throw new ApiError('CERTIFICATE_IS_NOT_CA', {
      message: `${notCa.subject.replace(/\n/g, ', ')} is not a CA certificate (basicConstraints CA:TRUE)`,
    });
  const fingerprint = sha1FingerprintOfDer(certs[0].raw);
  const values = {
    ...body,
    certPem,
    fingerprint,
    isVerified: false,
    verificationToken: randomUUID(),
    externalIdClaim: normalizeExternalIdClaim(body.externalIdClaim),
  };
  const id = await rt.writes.insert(ca.name, values, { now: ctx.now.toISOString() });
  return created(ca, id);
}

/**
 * `POST /cas/{id}/verify` with a PEM certificate (text/plain) whose common name is the CA's verification token and
 * which the CA signed: proof that whoever registered the CA holds its key. Each failure has its own code.
 */
async function verifyCa(rt: Runtime, ctx: Ctx) {
  const row = await rt.store.repoFor(ca).get(ctx.params.id);
  if (row.isVerified) throw new ApiError('CA_ALREADY_VERIFIED');
  const text = await ctx.text();
  const [cert] = pemCertificates(text);
  if (!cert) throw new ApiError('COULD_NOT_PARSE_BODY', { message: 'the body is not a PEM certificate' });
  if (commonName(cert) !== row.verificationToken) {
    throw new ApiError('INVALID_COMMON_NAME', {
      message: `the certificate's common name must be the CA's verification token (${row.verificationToken})`,
    });
  }
  if (!signedByCa(row, cert))
    throw new ApiError('CERTIFICATE_FAILED_VALIDATION', { message: 'the certificate was not signed by this CA' });
  await rt.writes.update(ca.name, row, { isVerified: true }, ctx.now.toISOString());
  return { data: {} };
}

/** `GET /cas/{id}/jwt`: the CA's static enrollment JWT (no expiry; `em: "ca"`), as `application/jwt`. */
async function caJwt(rt: Runtime, ctx: Ctx) {
  const row = await rt.store.repoFor(ca).get(ctx.params.id);
  const jwt = await rt.enrollmentSigner.signStatic({ em: 'ca', sub: row.id, jti: row.id });
  return { raw: jwt, contentType: 'application/jwt' };
}

export function routes(rt: Runtime): Route[] {
  return [
    standardRoute(ca, 'create', (ctx) => createCa(rt, ctx)),
    {
      method: 'POST',
      path: '/cas/{id}/verify',
      api: 'management',
      access: 'admin',
      responds: (r) => r.empty('the CA is verified'),
      handler: (ctx) => verifyCa(rt, ctx),
    },
    {
      method: 'GET',
      path: '/cas/{id}/jwt',
      api: 'management',
      access: 'admin',
      responds: (r) => r.raw("the CA's enrollment JWT", { type: 'string' }, ['application/jwt']),
      handler: (ctx) => caJwt(rt, ctx),
    },
  ];
}
