import { ApiError } from '../../../protocol/errors.js';
import type { Runtime } from '../../runtime.js';
import type { Row } from '../../store/repository.js';
import { recordMfaPassed } from '../posture/access.js';
import { keptUntilWritten } from '../../store/kept-until-written.js';
import type { LoginSubject } from './auth-policy-rules.js';
import { type AttemptBuckets, type BucketOptions, ThrottledError } from '../../auth/throttle.js';
import { looksLikeTotp, matchRecoveryCode, totpStep } from '../../auth/totp.js';

/**
 * Wrong MFA codes per identity (from all its sessions together): 5 at once, then one every 30 s. Six digits with a
 * window of five steps leave 1 in 200,000 guesses right: at two a minute that is months of guessing. Only failures
 * take tokens, so a person who types the right code is never slowed.
 */
const MFA_THROTTLE: BucketOptions = { capacity: 5, refillPerSecond: 1 / 30, maxKeys: 10_000 };

/** What a controller keeps for MFA: the wrong codes' throttle, and one queue per identity for code checks. */
interface MfaState {
  throttle: AttemptBuckets;
  queues: Map<string, Promise<unknown>>;
}

const states = new WeakMap<Runtime, MfaState>();

function stateOf(rt: Runtime): MfaState {
  let state = states.get(rt);
  if (!state) {
    // Where the login throttle keeps its buckets: in the database when controllers share one.
    const throttle = rt.loginThrottle.bucketsFor('mfa', MFA_THROTTLE, () => rt.clock().getTime());
    state = { throttle, queues: new Map() };
    states.set(rt, state);
  }
  return state;
}

/**
 * Runs `fn` after every earlier code check of the identity has finished: two requests carrying the same code read
 * the last accepted time step one after the other, so exactly one of them is accepted (the replay rule).
 */
async function serialised<T>(rt: Runtime, identityId: string, fn: () => Promise<T>): Promise<T> {
  const { queues } = stateOf(rt);
  const previous = queues.get(identityId) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const settled = run.catch(() => undefined);
  queues.set(identityId, settled);
  void settled.then(() => {
    if (queues.get(identityId) === settled) queues.delete(identityId);
  });
  return run;
}

export function mfaRepo(rt: Runtime) {
  return rt.store.repo('mfa');
}

export async function mfaOf(rt: Runtime, identityId: string): Promise<Row | undefined> {
  return mfaRepo(rt).findOne({ identityId });
}

export const invalidCode = (message = 'the MFA code is not valid') => new ApiError('MFA_INVALID_TOKEN', { message });

/**
 * Checks an MFA code of the identity's enrollment, throttled and once only:
 * - a TOTP code is accepted once: its time step becomes the last used, and no code of that step or an earlier one
 *   is accepted again;
 * - with `recovery`, a recovery code is accepted too, and removed (each works once). Recovery codes are tried first,
 *   as OpenZiti does, but only for what looks like one.
 * Wrong codes take from the identity's throttle; an empty throttle answers 429 before any check.
 */
export async function consumeCode(
  rt: Runtime,
  record: Row,
  code: string,
  opts: { recovery: boolean },
): Promise<'totp' | 'recovery'> {
  const identityId = record.identityId as string;
  const { throttle } = stateOf(rt);
  return serialised(rt, identityId, async () => {
    // Checked in the queue: guesses sent all at once are counted one after the other, never all let through.
    const wait = await throttle.waitMs(identityId);
    if (wait > 0) throw new ThrottledError(Math.ceil(wait / 1000), 'wrong MFA codes');
    // The queue orders this controller's checks; where other controllers write to the database too, a lock held in
    // a transaction orders theirs with these. Read again under both: an earlier check may have used a code since.
    const check = async () => {
      const current = await mfaRepo(rt).find(record.id);
      if (!current) throw new ApiError('MFA_NOT_ENROLLED');
      const now = rt.clock();
      if (opts.recovery && !looksLikeTotp(code)) {
        const codes = recoveryCodesOf(current);
        const index = matchRecoveryCode(code, codes);
        if (index < 0) return undefined;
        const left = codes.filter((_, i) => i !== index);
        await rt.writes.update('mfa', current, { recoveryCodes: left.join(',') }, now.toISOString());
        return 'recovery' as const;
      }
      const step = totpStep(current.secret as string, code, now, Number(current.lastTimeStep ?? 0));
      if (step === undefined) return undefined;
      await rt.writes.update('mfa', current, { lastTimeStep: step }, current.updatedAt);
      return 'totp' as const;
    };
    const alone = rt.store.soleWriterEpoch !== undefined;
    const ordered = async () => {
      await rt.store.hold('mfa-codes');
      return check();
    };
    const used = alone ? await check() : await rt.store.tx(ordered);
    if (used) return used;
    await throttle.take(identityId);
    throw invalidCode(
      opts.recovery
        ? 'the MFA code is not valid, already used, or not a recovery code'
        : 'the MFA code is not valid or was already used',
    );
  });
}

/** The unused recovery codes of an enrollment. */
export function recoveryCodesOf(record: Row): string[] {
  const text = (record.recoveryCodes as string | null) ?? '';
  return text === '' ? [] : text.split(',');
}

/**
 * Whether a session of this identity must pass TOTP before it is fully authenticated: when the identity has
 * completed MFA enrollment, or its auth policy says `secondary.requireTotp`.
 */
export async function totpRequired(rt: Runtime, { identity, policy }: LoginSubject): Promise<boolean> {
  if (policy?.secondary.requireTotp === true) return true;
  return (await mfaOf(rt, identity.id))?.isVerified === true;
}

/** OpenZiti's auth query for TOTP: where and how the client completes the session. */
function totpAuthQuery(isTotpEnrolled: boolean): Record<string, unknown> {
  return {
    typeId: 'MFA',
    provider: 'ziti',
    format: 'alphaNumeric',
    httpMethod: 'POST',
    httpUrl: './authenticate/mfa',
    minLength: 4,
    maxLength: 6,
    isTotpEnrolled,
  };
}

/** The auth queries of API session rows, by session id: a TOTP query for each session that has yet to pass MFA. */
export async function authQueriesOf(rt: Runtime, sessions: Row[]): Promise<Map<string, Record<string, unknown>[]>> {
  const pending = sessions.filter((s) => s.isMfaRequired === true && s.isMfaComplete !== true);
  const out = new Map<string, Record<string, unknown>[]>();
  if (pending.length === 0) return out;
  const enrolled = await mfaEnabledOf(rt, [...new Set(pending.map((s) => s.identityId as string))]);
  for (const s of pending) out.set(s.id, [totpAuthQuery(enrolled.has(s.identityId as string))]);
  return out;
}

/** Whether any identity has completed MFA enrollment: until one has, identity pages read nothing for `isMfaEnabled`. */
const anyEnabled = new WeakMap<Runtime, () => Promise<boolean>>();

function anyMfaEnabled(rt: Runtime): Promise<boolean> {
  let known = anyEnabled.get(rt);
  if (!known) {
    known = keptUntilWritten(rt.store, ['mfa'], () => mfaRepo(rt).exists({ isVerified: true }));
    anyEnabled.set(rt, known);
  }
  return known();
}

/** The identities (of those given) with a completed MFA enrollment: their `isMfaEnabled`. */
export async function mfaEnabledOf(rt: Runtime, identityIds: string[]): Promise<Set<string>> {
  if (identityIds.length === 0 || !(await anyMfaEnabled(rt))) return new Set();
  return new Set(
    (await mfaRepo(rt).findAll({ identityId: identityIds, isVerified: true }, { columns: ['identityId'] })).map(
      (r) => r.identityId as string,
    ),
  );
}

/** Marks the session as having passed MFA now, the time MFA posture checks count their timeout from. */
export async function completeSession(
  rt: Runtime,
  identityId: string,
  apiSessionId: string,
  fields: Record<string, unknown> = {},
): Promise<void> {
  const at = rt.clock();
  await rt.writes.update('api-session', apiSessionId, { ...fields, isMfaComplete: true }, at.toISOString());
  await recordMfaPassed(rt, identityId, apiSessionId, at);
}
