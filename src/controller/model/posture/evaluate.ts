import { semverRangeSatisfied } from '../../../protocol/semver-range.js';
import type { ApiSessionPosture, PostureData, ProcessReport } from '../../client-state.js';
import type { Row } from '../../store/repository.js';

/** OpenZiti's "no timeout" for a check and for what remains of one. */
export const NO_TIMEOUT = -1;

/**
 * After a wake or an unlock, an MFA check with promptOnWake/promptOnUnlock gives the user this long to answer again.
 */
export const MFA_PROMPT_GRACE_SECONDS = 5 * 60;

/** The outcome of one posture check for one API session of one identity, with what its posture query shows. */
export interface CheckOutcome {
  isPassing: boolean;
  /** Seconds the check stays good after it passed (MFA with a timeout), else -1. */
  timeout: number;
  /** Seconds left before it fails again (0 once failed), else -1. */
  timeoutRemaining: number;
  /** What was expected and what was reported, for failed service requests and INVALID_POSTURE. */
  expected: unknown;
  actual: unknown;
}

/**
 * Evaluates one posture check against an identity's reported data, as OpenZiti's controller does:
 * - OS: the reported OS type is one the check lists (case-insensitive) and its version is in one of the listed
 *   ranges (none listed: any version); a version that is not MAJOR.MINOR.PATCH fails;
 * - DOMAIN: the reported domain is one of the check's (case-insensitive);
 * - MAC: one reported address (reduced to lower-case hex, as checks store them) is one of the check's;
 * - PROCESS: the report for this check says the process runs, its signer is the check's (when set) and its hash
 *   one of the check's (when listed);
 * - PROCESS_MULTI: AllOf or AnyOf of its processes, each matched with the latest report for its path;
 * - MFA: this API session passed MFA, not longer ago than the timeout, and not before a wake or unlock the check
 *   prompts on unless the 5 minute grace period after it still runs.
 * No data: failing.
 */
export function evaluateCheck(
  check: Row,
  data: PostureData | undefined,
  session: ApiSessionPosture | undefined,
  now: Date,
): CheckOutcome {
  const passive = (isPassing: boolean, expected: unknown, actual: unknown): CheckOutcome => ({
    isPassing,
    timeout: NO_TIMEOUT,
    timeoutRemaining: NO_TIMEOUT,
    expected,
    actual,
  });
  switch (check.typeId) {
    case 'OS': {
      const oses = (check.operatingSystems as Array<{ type: string; versions: string[] }> | null) ?? [];
      const os = data?.os;
      const passing =
        !!os &&
        oses.some(
          (o) =>
            o.type.toLowerCase() === os.type.toLowerCase() &&
            (o.versions.length === 0 || o.versions.some((r) => semverRangeSatisfied(r, os.version))),
        );
      return passive(passing, oses, os ? { type: os.type, version: os.version, build: os.build } : null);
    }
    case 'DOMAIN': {
      const domains = (check.domains as string[] | null) ?? [];
      const reported = data?.domain?.domain;
      return passive(
        reported !== undefined && domains.some((d) => d.toLowerCase() === reported.toLowerCase()),
        domains,
        reported ?? null,
      );
    }
    case 'MAC': {
      const allowed = new Set((check.macAddresses as string[] | null) ?? []);
      const reported = data?.mac?.addresses ?? [];
      return passive(
        reported.some((a) => allowed.has(a)),
        [...allowed],
        reported,
      );
    }
    case 'PROCESS': {
      const wanted = check.process as {
        osType: string;
        path: string;
        hashes?: string[];
        signerFingerprint?: string;
      } | null;
      const report = data?.processes.get(check.id);
      const passing =
        !!wanted &&
        !!report &&
        processMatches(report, wanted.hashes ?? [], wanted.signerFingerprint ? [wanted.signerFingerprint] : []);
      return passive(passing, wanted, report ? processActual(report) : null);
    }
    case 'PROCESS_MULTI': {
      const wanted =
        (check.processes as Array<{
          osType: string;
          path: string;
          hashes?: string[];
          signerFingerprints?: string[];
        }> | null) ?? [];
      const results = wanted.map((p) => {
        const report = data?.processesByPath.get(p.path);
        return !!report && processMatches(report, p.hashes ?? [], p.signerFingerprints ?? []);
      });
      const passing =
        wanted.length > 0 && (check.semantic === 'AnyOf' ? results.some(Boolean) : results.every(Boolean));
      return passive(
        passing,
        { semantic: check.semantic, processes: wanted },
        wanted
          .map((p) => data?.processesByPath.get(p.path))
          .filter(Boolean)
          .map((r) => processActual(r!)),
      );
    }
    case 'MFA':
      return evaluateMfa(check, session, now);
    default:
      return passive(false, null, null);
  }
}

function processMatches(report: ProcessReport, hashes: readonly string[], signers: readonly string[]): boolean {
  if (!report.isRunning) return false;
  if (hashes.length > 0 && !hashes.some((h) => h.toLowerCase() === report.binaryHash)) return false;
  if (signers.length > 0 && !signers.some((s) => report.signerFingerprints.includes(s.toLowerCase()))) return false;
  return true;
}

function processActual(r: ProcessReport) {
  return { path: r.path, isRunning: r.isRunning, binaryHash: r.binaryHash, signerFingerprints: r.signerFingerprints };
}

const seconds = (ms: number) => Math.floor(ms / 1000);

/** An event (wake, unlock) after MFA was passed, whose grace period is over: the user must answer MFA again. */
export function promptMissed(event: Date | undefined, passedAt: Date, now: Date): boolean {
  return (
    !!event &&
    event.getTime() >= passedAt.getTime() &&
    now.getTime() - event.getTime() > MFA_PROMPT_GRACE_SECONDS * 1000
  );
}

function evaluateMfa(check: Row, session: ApiSessionPosture | undefined, now: Date): CheckOutcome {
  const timeoutSeconds =
    typeof check.timeoutSeconds === 'number' && check.timeoutSeconds > 0 ? check.timeoutSeconds : NO_TIMEOUT;
  const passedAt = session?.mfaPassedAt;
  const expected = {
    passedMfa: true,
    timeoutSeconds,
    promptOnWake: check.promptOnWake === true,
    promptOnUnlock: check.promptOnUnlock === true,
  };
  const actual = {
    passedMfa: !!passedAt,
    passedAt: passedAt?.toISOString() ?? null,
    wokenAt: session?.wokenAt?.toISOString() ?? null,
    unlockedAt: session?.unlockedAt?.toISOString() ?? null,
  };
  if (!passedAt)
    return {
      isPassing: false,
      timeout: timeoutSeconds,
      timeoutRemaining: timeoutSeconds === NO_TIMEOUT ? NO_TIMEOUT : 0,
      expected,
      actual,
    };
  let remaining =
    timeoutSeconds === NO_TIMEOUT
      ? NO_TIMEOUT
      : Math.max(timeoutSeconds - seconds(now.getTime() - passedAt.getTime()), 0);
  let passing = remaining !== 0;
  // A wake or unlock after MFA leaves the grace period to answer again: the time left is at most what remains of it.
  for (const [prompts, event] of [
    [check.promptOnWake === true, session?.wokenAt],
    [check.promptOnUnlock === true, session?.unlockedAt],
  ] as const) {
    if (!prompts || !event || event.getTime() < passedAt.getTime()) continue;
    if (promptMissed(event, passedAt, now)) passing = false;
    const grace = Math.max(MFA_PROMPT_GRACE_SECONDS - seconds(now.getTime() - event.getTime()), 0);
    if (timeoutSeconds !== NO_TIMEOUT) remaining = Math.min(remaining, grace);
  }
  if (!passing && remaining > 0) remaining = 0;
  return { isPassing: passing, timeout: timeoutSeconds, timeoutRemaining: remaining, expected, actual };
}
