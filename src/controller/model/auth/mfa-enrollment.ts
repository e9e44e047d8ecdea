// TOTP MFA of an identity (the rules of routes/client/mfa.ts): its enrollment (start, verify, disable), its recovery
// codes, the second step of authentication, and an administrator's removal. Codes are checked by model/auth/mfa.ts.
import { ApiError, notFound } from '../../../protocol/errors.js';
import { newRecoveryCodes, newTotpSecret, provisioningUrl } from '../../auth/totp.js';
import type { Runtime } from '../../runtime.js';
import type { Principal } from '../../server/types.js';
import type { Row } from '../../store/repository.js';
import { completeSession, consumeCode, mfaOf, mfaRepo, recoveryCodesOf } from './mfa.js';

/** The session that asks: its identity and API session. */
type MfaSession = Pick<Principal, 'identityId' | 'apiSessionId'>;

const notStarted = () => new ApiError('MFA_ENROLLMENT_NOT_STARTED');

/** An identity's MFA enrollment; none is 404 MFA_ENROLLMENT_NOT_STARTED. */
export async function mfaEnrollmentOf(rt: Runtime, identityId: string): Promise<Row> {
  const record = await mfaOf(rt, identityId);
  if (!record) throw notStarted();
  return record;
}

export const MFA_LINKS = {
  self: { href: './current-identity/mfa' },
  'recovery-codes': { href: './current-identity/mfa/recovery-codes' },
};

/** The account an authenticator app shows: the identity at this controller (its public host name is the issuer). */
export function provisioningUrlOf(rt: Runtime, identityName: string, record: Row): string {
  return provisioningUrl(new URL(rt.config.publicUrl).hostname, identityName, record.secret as string);
}

/** A TOTP code or a recovery code completes the session (`POST /authenticate/mfa`). */
export async function passMfa(rt: Runtime, session: MfaSession, code: string): Promise<void> {
  const record = await mfaOf(rt, session.identityId);
  if (record?.isVerified !== true) {
    throw new ApiError('MFA_NOT_ENROLLED', {
      message: 'the identity has no completed MFA enrollment: enroll with POST /current-identity/mfa first',
    });
  }
  await consumeCode(rt, record, code, { recovery: true });
  await completeSession(rt, session.identityId, session.apiSessionId);
}

/** A new secret and recovery codes, unverified until a code from them is given; answers the enrollment's id. */
export async function startMfaEnrollment(rt: Runtime, identityId: string, at: Date): Promise<string> {
  if (await mfaOf(rt, identityId)) {
    throw new ApiError('MFA_EXISTS', {
      message:
        'an MFA enrollment exists: verify it, or disable it (DELETE /current-identity/mfa) before starting again',
    });
  }
  return rt.writes.insert(
    'mfa',
    { identityId, isVerified: false, secret: newTotpSecret(), recoveryCodes: newRecoveryCodes().join(',') },
    { now: at.toISOString() },
  );
}

/** The enrollment as served: the provisioning URL and recovery codes are shown only while unverified. */
export function mfaStatus(rt: Runtime, identityName: string, record: Row): Record<string, unknown> {
  const data: Record<string, unknown> = { ...entityOf(record), isVerified: record.isVerified === true };
  if (record.isVerified !== true) {
    data.provisioningUrl = provisioningUrlOf(rt, identityName, record);
    data.recoveryCodes = recoveryCodesOf(record);
  }
  return data;
}

/** The enrollment as an entity: what every MFA answer about it carries. */
function entityOf(record: Row): Record<string, unknown> {
  return {
    id: record.id,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    tags: record.tags ?? {},
    _links: MFA_LINKS,
  };
}

/**
 * A TOTP code completes enrollment (`POST /current-identity/mfa/verify`). The session that verified has passed MFA
 * too (OpenZiti does the same).
 */
export async function verifyMfaEnrollment(rt: Runtime, session: MfaSession, record: Row, code: string): Promise<void> {
  if (record.isVerified === true) throw new ApiError('MFA_EXISTS', { message: 'MFA enrollment is already complete' });
  await consumeCode(rt, record, code, { recovery: false });
  await rt.store.tx(async () => {
    await rt.writes.update('mfa', record, { isVerified: true }, rt.clock().toISOString());
    await completeSession(rt, session.identityId, session.apiSessionId, { isMfaRequired: true });
  });
}

/**
 * Disables MFA: a current code (or a recovery code, `code()`, asked for only then) once enrollment is complete; an
 * unverified enrollment goes without one.
 */
export async function disableMfa(rt: Runtime, record: Row, code: () => string): Promise<void> {
  if (record.isVerified === true) await consumeCode(rt, record, code(), { recovery: true });
  await rt.writes.delete('mfa', record);
}

/** The unused recovery codes, for a current TOTP code (`code()`, asked for once enrollment is complete). */
export async function showRecoveryCodes(rt: Runtime, record: Row, code: () => string) {
  if (record.isVerified !== true)
    throw new ApiError('MFA_ENROLLMENT_NOT_STARTED', {
      message: 'MFA enrollment is not complete: its status (GET /current-identity/mfa) shows the recovery codes',
    });
  await consumeCode(rt, record, code(), { recovery: false });
  const current = (await mfaRepo(rt).find(record.id)) ?? record;
  return { ...entityOf(current), recoveryCodes: recoveryCodesOf(current) };
}

/** A current TOTP code replaces every recovery code; answers the new ones. */
export async function regenerateRecoveryCodes(rt: Runtime, record: Row, code: string): Promise<string[]> {
  if (record.isVerified !== true)
    throw new ApiError('MFA_ENROLLMENT_NOT_STARTED', { message: 'MFA enrollment is not complete: verify it first' });
  await consumeCode(rt, record, code, { recovery: false });
  const codes = newRecoveryCodes();
  await rt.writes.update('mfa', record, { recoveryCodes: codes.join(',') }, rt.clock().toISOString());
  return codes;
}

/** An administrator removes an identity's MFA, for one that has lost its authenticator and its recovery codes. */
export async function removeMfa(rt: Runtime, identityId: string): Promise<void> {
  if (!(await rt.store.repo('identity').find(identityId))) throw notFound('identity', identityId);
  const removed = await rt.writes.deleteWhere('mfa', { identityId });
  if (removed === 0)
    throw new ApiError('MFA_ENROLLMENT_NOT_STARTED', { message: `identity ${identityId} has no MFA enrollment` });
}
