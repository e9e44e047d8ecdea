import QRCode from 'qrcode';
import { ApiError } from '../../../protocol/errors.js';
import type { Runtime } from '../../runtime.js';
import { headerOf } from '../../server/auth-stage.js';
import type { Ctx, Route } from '../../server/types.js';
import { invalidCode } from '../../model/auth/mfa.js';
import {
  disableMfa,
  MFA_LINKS,
  mfaEnrollmentOf,
  mfaStatus,
  passMfa,
  provisioningUrlOf,
  regenerateRecoveryCodes,
  removeMfa,
  showRecoveryCodes,
  startMfaEnrollment,
  verifyMfaEnrollment,
} from '../../model/auth/mfa-enrollment.js';
import { ref, type Responses, type Success } from '../../server/responses.js';
import { resource } from '../../../resources/index.js';

/**
 * TOTP MFA on both APIs: enrollment of the current identity (initiate, status, QR code, verify, disable), its
 * recovery codes, the second step of authentication (`POST /authenticate/mfa`), and an admin's removal.
 *
 * Routes marked `partialSession` may be called by a session that has yet to pass MFA (the auth stage refuses every
 * other route to it): completing MFA, and enrolling, for an identity whose auth policy requires TOTP before it has
 * any. Disabling MFA and recovery codes need a full session.
 */
export function routes(rt: Runtime): Route[] {
  const route = (method: Route['method'], path: string, responds: Route['responds'], handler: Route['handler']) => ({
    method,
    path,
    api: 'both' as const,
    access: 'session' as const,
    responds,
    handler,
  });
  // A session that has yet to pass MFA may complete it, or enroll when its auth policy requires TOTP.
  const partial = (r: Route): Route => ({ ...r, partialSession: true });
  return [
    partial(route('POST', '/authenticate/mfa', mfaPassed, (ctx) => authenticateMfa(rt, ctx))),
    partial(route('POST', '/current-identity/mfa', enrollmentStarted, (ctx) => initiate(rt, ctx))),
    partial(route('GET', '/current-identity/mfa', mfaDetail, (ctx) => status(rt, ctx))),
    partial(route('GET', '/current-identity/mfa/qr-code', qrCodeAnswer, (ctx) => qrCode(rt, ctx))),
    partial(route('POST', '/current-identity/mfa/verify', enrollmentVerified, (ctx) => verify(rt, ctx))),
    route(
      'DELETE',
      '/current-identity/mfa',
      (r) => r.empty('MFA is disabled'),
      (ctx) => disable(rt, ctx),
    ),
    route('GET', '/current-identity/mfa/recovery-codes', recoveryCodesShown, (ctx) => viewRecoveryCodes(rt, ctx)),
    route('POST', '/current-identity/mfa/recovery-codes', recoveryCodesMade, (ctx) => regenerate(rt, ctx)),
    {
      method: 'DELETE',
      path: '/identities/{id}/mfa',
      api: 'management',
      access: 'admin',
      responds: (r) => r.empty("the identity's MFA is removed"),
      handler: (ctx) => adminRemove(rt, ctx),
    },
  ];
}

const CODE_BODY = {
  type: 'object',
  properties: { code: { type: 'string', maxLength: 64 } },
  required: ['code'],
  additionalProperties: false,
};

async function codeFromBody(rt: Runtime, ctx: Ctx): Promise<string> {
  return (rt.validators.custom(CODE_BODY, await ctx.json()).code as string).trim();
}

const own = (rt: Runtime, ctx: Ctx) => mfaEnrollmentOf(rt, ctx.principal!.identityId);

async function authenticateMfa(rt: Runtime, ctx: Ctx) {
  await passMfa(rt, ctx.principal!, await codeFromBody(rt, ctx));
  return { data: {} };
}

async function initiate(rt: Runtime, ctx: Ctx) {
  const id = await startMfaEnrollment(rt, ctx.principal!.identityId, ctx.now);
  return { status: 201, data: { id, _links: MFA_LINKS } };
}

async function status(rt: Runtime, ctx: Ctx) {
  return { data: mfaStatus(rt, ctx.principal!.identityName, await own(rt, ctx)) };
}

/** `GET /current-identity/mfa/qr-code`: the provisioning URL as a 256×256 PNG, while unverified only. */
async function qrCode(rt: Runtime, ctx: Ctx) {
  const record = await own(rt, ctx);
  if (record.isVerified === true)
    throw new ApiError('NOT_FOUND', { message: 'MFA enrollment is complete: its QR code is no longer shown' });
  const png = await QRCode.toBuffer(provisioningUrlOf(rt, ctx.principal!.identityName, record), {
    type: 'png',
    width: 256,
    margin: 2,
    errorCorrectionLevel: 'M',
  });
  return { raw: png, contentType: 'image/png', headers: { 'cache-control': 'no-store' } };
}

async function verify(rt: Runtime, ctx: Ctx) {
  const code = await codeFromBody(rt, ctx);
  await verifyMfaEnrollment(rt, ctx.principal!, await own(rt, ctx), code);
  return { data: {} };
}

/** `DELETE /current-identity/mfa`, header `mfa-validation-code` once enrollment is complete. */
async function disable(rt: Runtime, ctx: Ctx) {
  await disableMfa(rt, await own(rt, ctx), () => validationCode(ctx, 'disabling completed MFA'));
  return { data: {} };
}

/** `GET /current-identity/mfa/recovery-codes`, header `mfa-validation-code`. */
async function viewRecoveryCodes(rt: Runtime, ctx: Ctx) {
  const code = () => validationCode(ctx, 'showing the recovery codes');
  return { data: await showRecoveryCodes(rt, await own(rt, ctx), code) };
}

/** `POST /current-identity/mfa/recovery-codes {code}`: the answer carries the new codes. */
async function regenerate(rt: Runtime, ctx: Ctx) {
  const code = await codeFromBody(rt, ctx);
  return { data: { recoveryCodes: await regenerateRecoveryCodes(rt, await own(rt, ctx), code) } };
}

/** The code in header `mfa-validation-code`, which `what` needs. */
function validationCode(ctx: Ctx, what: string): string {
  const code = headerOf(ctx.req, 'mfa-validation-code') ?? '';
  if (code === '') throw invalidCode(`${what} needs a current code in header mfa-validation-code`);
  return code;
}

/** `DELETE /identities/{id}/mfa` (admin). */
async function adminRemove(rt: Runtime, ctx: Ctx) {
  await removeMfa(rt, ctx.params.id);
  return { data: {} };
}

const mfaPassed = (r: Responses) => r.empty('the session has passed MFA');
const enrollmentVerified = (r: Responses) => r.empty('MFA enrollment is complete');

function enrollmentStarted(r: Responses): Success {
  return r.created(resource('mfa'), 'MFA enrollment started; verify it with a code');
}

const RECOVERY_CODES = {
  type: 'object',
  properties: { recoveryCodes: { type: 'array', items: { type: 'string' } } },
  required: ['recoveryCodes'],
};

function mfaDetail(r: Responses): Success {
  const description = 'the MFA enrollment; the provisioning URL and recovery codes only while unverified';
  return r.data('detailMfaEnvelope', description, {
    type: 'object',
    properties: {
      id: { type: 'string' },
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
      tags: ref('tags'),
      _links: ref('links'),
      isVerified: { type: 'boolean' },
      provisioningUrl: { type: 'string' },
      recoveryCodes: RECOVERY_CODES.properties.recoveryCodes,
    },
    required: ['id', 'createdAt', 'updatedAt', '_links', 'isVerified'],
  });
}

function qrCodeAnswer(r: Responses): Success {
  return r.raw('the provisioning URL as a QR code, while unverified', { type: 'file' }, ['image/png']);
}

function recoveryCodesShown(r: Responses): Success {
  const description = 'never answered here: recovery codes are kept as hashes (404 says to regenerate them)';
  return r.data('detailMfaRecoveryCodesEnvelope', description, RECOVERY_CODES);
}

function recoveryCodesMade(r: Responses): Success {
  const description = 'the new recovery codes (GET ./recovery-codes shows them again for a current code)';
  return r.data('mfaRecoveryCodesEnvelope', description, RECOVERY_CODES);
}
