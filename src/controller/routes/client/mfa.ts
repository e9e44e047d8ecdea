import QRCode from 'qrcode';
import { ApiError, notFound } from '../../../protocol/errors.js';
import type { Runtime } from '../../runtime.js';
import { headerOf } from '../../server/auth-stage.js';
import type { Ctx, Route } from '../../server/types.js';
import type { Row } from '../../store/repository.js';
import { completeSession, consumeCode, invalidCode, mfaOf, mfaRepo, recoveryCodesOf } from '../../model/auth/mfa.js';
import { newRecoveryCodes, newTotpSecret, provisioningUrl } from '../../auth/totp.js';
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
    route('POST', '/current-identity/mfa/recovery-codes', recoveryCodesMade, (ctx) => regenerateRecoveryCodes(rt, ctx)),
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

const notStarted = () => new ApiError('MFA_ENROLLMENT_NOT_STARTED');

/** The enrollment of the current identity; none is 404 MFA_ENROLLMENT_NOT_STARTED. */
async function ownRecord(rt: Runtime, ctx: Ctx): Promise<Row> {
  const record = await mfaOf(rt, ctx.principal!.identityId);
  if (!record) throw notStarted();
  return record;
}

const LINKS = {
  self: { href: './current-identity/mfa' },
  'recovery-codes': { href: './current-identity/mfa/recovery-codes' },
};

/** The account an authenticator app shows: the identity at this controller (its public host name is the issuer). */
function urlOf(rt: Runtime, ctx: Ctx, record: Row): string {
  return provisioningUrl(new URL(rt.config.publicUrl).hostname, ctx.principal!.identityName, record.secret as string);
}

/** `POST /authenticate/mfa`: a TOTP code or a recovery code completes the session. */
async function authenticateMfa(rt: Runtime, ctx: Ctx) {
  const code = await codeFromBody(rt, ctx);
  const record = await mfaOf(rt, ctx.principal!.identityId);
  if (record?.isVerified !== true) {
    throw new ApiError('MFA_NOT_ENROLLED', {
      message: 'the identity has no completed MFA enrollment: enroll with POST /current-identity/mfa first',
    });
  }
  await consumeCode(rt, record, code, { recovery: true });
  await completeSession(rt, ctx.principal!.identityId, ctx.principal!.apiSessionId);
  return { data: {} };
}

/** `POST /current-identity/mfa`: a new secret and recovery codes, unverified until a code from them is given. */
async function initiate(rt: Runtime, ctx: Ctx) {
  const identityId = ctx.principal!.identityId;
  if (await mfaOf(rt, identityId)) {
    throw new ApiError('MFA_EXISTS', {
      message:
        'an MFA enrollment exists: verify it, or disable it (DELETE /current-identity/mfa) before starting again',
    });
  }
  const id = await rt.writes.insert(
    'mfa',
    { identityId, isVerified: false, secret: newTotpSecret(), recoveryCodes: newRecoveryCodes().join(',') },
    { now: ctx.now.toISOString() },
  );
  return { status: 201, data: { id, _links: LINKS } };
}

/** `GET /current-identity/mfa`: the provisioning URL and recovery codes are shown only while unverified. */
async function status(rt: Runtime, ctx: Ctx) {
  const record = await ownRecord(rt, ctx);
  const data: Record<string, unknown> = { ...entityOf(record), isVerified: record.isVerified === true };
  if (record.isVerified !== true) {
    data.provisioningUrl = urlOf(rt, ctx, record);
    data.recoveryCodes = recoveryCodesOf(record);
  }
  return { data };
}

/** The enrollment as an entity: what every MFA answer about it carries. */
function entityOf(record: Row): Record<string, unknown> {
  return {
    id: record.id,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    tags: record.tags ?? {},
    _links: LINKS,
  };
}

/** `GET /current-identity/mfa/qr-code`: the provisioning URL as a 256×256 PNG, while unverified only. */
async function qrCode(rt: Runtime, ctx: Ctx) {
  const record = await ownRecord(rt, ctx);
  if (record.isVerified === true)
    throw new ApiError('NOT_FOUND', { message: 'MFA enrollment is complete: its QR code is no longer shown' });
  const png = await QRCode.toBuffer(urlOf(rt, ctx, record), {
    type: 'png',
    width: 256,
    margin: 2,
    errorCorrectionLevel: 'M',
  });
  return { raw: png, contentType: 'image/png', headers: { 'cache-control': 'no-store' } };
}

/**
 * `POST /current-identity/mfa/verify {code}`: a TOTP code completes enrollment. The session that verified has
 * passed MFA too (OpenZiti does the same).
 */
async function verify(rt: Runtime, ctx: Ctx) {
  const code = await codeFromBody(rt, ctx);
  const record = await ownRecord(rt, ctx);
  if (record.isVerified === true) throw new ApiError('MFA_EXISTS', { message: 'MFA enrollment is already complete' });
  await consumeCode(rt, record, code, { recovery: false });
  await rt.store.tx(async () => {
    await rt.writes.update('mfa', record, { isVerified: true }, rt.clock().toISOString());
    await completeSession(rt, ctx.principal!.identityId, ctx.principal!.apiSessionId, { isMfaRequired: true });
  });
  return { data: {} };
}

/**
 * `DELETE /current-identity/mfa`, header `mfa-validation-code`: a current code (or a recovery code) once enrollment
 * is complete; an unverified enrollment goes with any value, an empty one included.
 */
async function disable(rt: Runtime, ctx: Ctx) {
  const record = await ownRecord(rt, ctx);
  if (record.isVerified === true) {
    await consumeCode(rt, record, validationCode(ctx, 'disabling completed MFA'), { recovery: true });
  }
  await rt.writes.delete('mfa', record);
  return { data: {} };
}

/**
 * `GET /current-identity/mfa/recovery-codes`, header `mfa-validation-code`: a current TOTP code shows the unused codes.
 */
async function viewRecoveryCodes(rt: Runtime, ctx: Ctx) {
  const record = await ownRecord(rt, ctx);
  if (record.isVerified !== true)
    throw new ApiError('MFA_ENROLLMENT_NOT_STARTED', {
      message: 'MFA enrollment is not complete: its status (GET /current-identity/mfa) shows the recovery codes',
    });
  await consumeCode(rt, record, validationCode(ctx, 'showing the recovery codes'), { recovery: false });
  const current = (await mfaRepo(rt).find(record.id)) ?? record;
  return { data: { ...entityOf(current), recoveryCodes: recoveryCodesOf(current) } };
}

/**
 * `POST /current-identity/mfa/recovery-codes {code}`: a current TOTP code replaces every recovery code;
 * the answer carries the new ones.
 */
async function regenerateRecoveryCodes(rt: Runtime, ctx: Ctx) {
  const code = await codeFromBody(rt, ctx);
  const record = await ownRecord(rt, ctx);
  if (record.isVerified !== true)
    throw new ApiError('MFA_ENROLLMENT_NOT_STARTED', { message: 'MFA enrollment is not complete: verify it first' });
  await consumeCode(rt, record, code, { recovery: false });
  const codes = newRecoveryCodes();
  await rt.writes.update('mfa', record, { recoveryCodes: codes.join(',') }, rt.clock().toISOString());
  return { data: { recoveryCodes: codes } };
}

/** The code in header `mfa-validation-code`, which `what` needs. */
function validationCode(ctx: Ctx, what: string): string {
  const code = headerOf(ctx.req, 'mfa-validation-code') ?? '';
  if (code === '') throw invalidCode(`${what} needs a current code in header mfa-validation-code`);
  return code;
}

/** `DELETE /identities/{id}/mfa` (admin): for an identity that has lost its authenticator and its recovery codes. */
async function adminRemove(rt: Runtime, ctx: Ctx) {
  const identityId = ctx.params.id;
  if (!(await rt.store.repo('identity').find(identityId))) throw notFound('identity', identityId);
  const removed = await rt.writes.deleteWhere('mfa', { identityId });
  if (removed === 0)
    throw new ApiError('MFA_ENROLLMENT_NOT_STARTED', { message: `identity ${identityId} has no MFA enrollment` });
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
