import { ApiError } from '../protocol/errors.js';
import { setLatest } from '../protocol/latest-entries.js';
import { type AttemptBuckets, type BucketOptions, TokenBuckets } from './auth/throttle.js';

/**
 * What the controller keeps in memory for the client API, as OpenZiti keeps it (its posture cache and its identity
 * refresh map are not in its database either): posture data clients report, the service requests posture refused,
 * when what each identity sees last changed, and the per-client request budget. All of it is volatile by design:
 * after a restart clients report posture again (SDKs do on reconnect, and whenever a posture query says so), and
 * every identity's service list counts as changed at the start. Controllers sharing a database keep all of it there
 * instead: the service update stamps (Runtime.serviceUpdates), the posture reports (Runtime.posture) and the
 * request budget (the buckets they are given).
 */

/** Common to every piece of reported posture data (OpenZiti's postureDataBase). */
export interface Reported {
  postureCheckId: string;
  lastUpdatedAt: Date;
}

export interface ProcessReport extends Reported {
  path: string;
  isRunning: boolean;
  binaryHash: string;
  signerFingerprints: string[];
}

/** Posture that belongs to one API session (one login of one device): MFA passed, endpoint woken or unlocked. */
export interface ApiSessionPosture {
  mfaPassedAt?: Date;
  wokenAt?: Date;
  unlockedAt?: Date;
}

/** One identity's reported posture (OpenZiti's PostureData). */
export interface PostureData {
  os?: Reported & { type: string; version: string; build: string };
  mac?: Reported & { addresses: string[] };
  domain?: Reported & { domain: string };
  /** PROCESS reports by the check they answer (one per check, the latest wins), as OpenZiti keys them. */
  processes: Map<string, ProcessReport>;
  /** The latest report for each path (PROCESS_MULTI checks look processes up by path). */
  processesByPath: Map<string, ProcessReport>;
  apiSessions: Map<string, ApiSessionPosture>;
}

/** A service request (session create) refused on posture, for `GET /identities/{id}/failed-service-requests`. */
export interface FailedServiceRequest {
  apiSessionId: string;
  serviceId: string;
  serviceName: string;
  sessionType: string;
  when: string;
  policyFailures: Array<{ policyId: string; policyName: string; checks: Array<Record<string, unknown>> }>;
}

/** How many refused requests are kept per identity (the latest ones): enough to debug, bounded whatever clients do. */
const FAILURES_KEPT = 50;

/**
 * The per-client request budget of the client API: a token bucket per API session (per address before login).
 * 50 requests at once, refilled at 10 a second, is far above what SDKs and tunnelers do (they poll the service
 * update check every few seconds and list services when it moves), and stops a runaway client from taking the
 * controller from everyone else. Configurable (CreateControllerOptions.clientRateLimit, `ctl controller start
 * --client-rate-limit`).
 */
export interface ClientRateLimit {
  /** Requests a client may make at once. */
  burst: number;
  /** Requests per second it regains. */
  perSecond: number;
}

const ADDRESS_FACTOR = 10;

const DEFAULT_CLIENT_RATE_LIMIT: ClientRateLimit = { burst: 50, perSecond: 10 };

/** Where the budget's buckets of one `kind` are kept: in memory by default, in the database when shared. */
export type BudgetBuckets = (kind: string, options: BucketOptions) => AttemptBuckets;

/**
 * When what each identity sees through the client API last changed (the service update check): kept in memory by
 * ClientState, in the database by controllers sharing one (cluster/service-update-stamps.ts).
 */
export interface ServiceUpdateStamps {
  touch(identityIds: Iterable<string>, at: Date): Promise<void>;
  touchEveryone(at: Date): Promise<void>;
  lastChangeAt(identityId: string): Promise<Date>;
  /** A deleted identity's stamp goes with it. */
  forget(identityId: string): Promise<void>;
}

/**
 * What identities reported of their posture and the service requests posture refused them: kept in memory by
 * ClientState, in the database by controllers sharing one (cluster/posture-reports.ts).
 */
export interface PostureReports {
  /** The identity's data if it ever reported (a read makes no entry). */
  read(identityId: string): Promise<PostureData | undefined>;
  /** Applies `change` to the identity's data (empty if it never reported) and keeps the result, which it answers. */
  update(identityId: string, change: (data: PostureData) => void): Promise<PostureData>;
  recordFailure(identityId: string, failure: FailedServiceRequest): Promise<void>;
  /** The latest refused requests, oldest first. */
  failuresOf(identityId: string): Promise<readonly FailedServiceRequest[]>;
  /** A deleted identity's posture and refusals go with it, as in OpenZiti. */
  forgetIdentity(identityId: string): Promise<void>;
}

/** What OpenZiti serves for an identity that never reported. */
export function emptyPosture(): PostureData {
  return { processes: new Map(), processesByPath: new Map(), apiSessions: new Map() };
}

/** The refusals kept after `failure` is added: the latest FAILURES_KEPT. */
export function withFailure(list: readonly FailedServiceRequest[], failure: FailedServiceRequest) {
  return [...list, failure].slice(-FAILURES_KEPT);
}

/**
 * How many process reports (by check, and by path) and API sessions an identity's posture keeps: the latest ones.
 * A client names its own checks, paths and sessions, so without a bound one could grow its identity's posture
 * without end (and, where controllers share a database, the row rewritten at every report). Far above what a device
 * reports: one process report per process check of the policies that apply to it, and its live sessions. An API
 * session's posture let go this way loses its endpoint state; whether it passed MFA is read again from the session's
 * row, with the row's last update taken as when (posture/access.ts), which may start an MFA timeout later.
 */
export const POSTURE_ENTRIES_KEPT = 64;

/** Sets `key` as the latest entry of one of a posture's maps, the oldest going beyond POSTURE_ENTRIES_KEPT. */
export function setLatestPosture<V>(map: Map<string, V>, key: string, value: V): void {
  setLatest(map, key, value, POSTURE_ENTRIES_KEPT);
}

/**
 * The posture of one API session within an identity's data, made empty on first use; asked for, it counts as the
 * latest, so that a session still reporting is never the one let go.
 */
export function apiSessionPostureIn(data: PostureData, apiSessionId: string): ApiSessionPosture {
  const s = data.apiSessions.get(apiSessionId) ?? {};
  setLatestPosture(data.apiSessions, apiSessionId, s);
  return s;
}

export class ClientState implements ServiceUpdateStamps, PostureReports {
  private readonly posture = new Map<string, PostureData>();
  private readonly failures = new Map<string, FailedServiceRequest[]>();
  private readonly changes = new Map<string, Date>();
  private everyoneChangedAt: Date;
  private readonly budget: AttemptBuckets;
  private readonly addressBudget: AttemptBuckets;

  constructor(
    readonly startedAt: Date,
    readonly rateLimit: ClientRateLimit = DEFAULT_CLIENT_RATE_LIMIT,
    now: () => number = Date.now,
    buckets: BudgetBuckets = (_kind, options) => new TokenBuckets(options, now),
  ) {
    this.everyoneChangedAt = startedAt;
    this.budget = buckets('budget', {
      capacity: rateLimit.burst,
      refillPerSecond: rateLimit.perSecond,
      maxKeys: 100_000,
    });
    // Before login a client is known by its address only, and many clients may share one (NAT, a tunneler host
    // enrolling its identities): ten times the budget.
    this.addressBudget = buckets('address-budget', {
      capacity: rateLimit.burst * ADDRESS_FACTOR,
      refillPerSecond: rateLimit.perSecond * ADDRESS_FACTOR,
      maxKeys: 100_000,
    });
  }

  async read(identityId: string): Promise<PostureData | undefined> {
    return this.posture.get(identityId);
  }

  async update(identityId: string, change: (data: PostureData) => void): Promise<PostureData> {
    let data = this.posture.get(identityId);
    if (!data) this.posture.set(identityId, (data = emptyPosture()));
    change(data);
    return data;
  }

  /**
   * Forget an identity (deleted): its posture and refusals go with it, as in OpenZiti. Its service update stamp goes
   * through `forget`, which the stamps kept in the database answer too.
   */
  async forgetIdentity(identityId: string): Promise<void> {
    this.posture.delete(identityId);
    this.failures.delete(identityId);
  }

  async forget(identityId: string): Promise<void> {
    this.changes.delete(identityId);
  }

  async recordFailure(identityId: string, failure: FailedServiceRequest): Promise<void> {
    this.failures.set(identityId, withFailure(this.failures.get(identityId) ?? [], failure));
  }

  async failuresOf(identityId: string): Promise<readonly FailedServiceRequest[]> {
    return this.failures.get(identityId) ?? [];
  }

  /** What an identity sees changed at `at` (service update check). */
  async touch(identityIds: Iterable<string>, at: Date): Promise<void> {
    for (const id of identityIds) if ((this.changes.get(id)?.getTime() ?? 0) < at.getTime()) this.changes.set(id, at);
  }

  /** What every identity sees changed (a policy over `#all` identities). */
  async touchEveryone(at: Date): Promise<void> {
    if (this.everyoneChangedAt.getTime() < at.getTime()) this.everyoneChangedAt = at;
  }

  /** When what the identity sees last changed: the controller's start when nothing changed since. */
  async lastChangeAt(identityId: string): Promise<Date> {
    const own = this.changes.get(identityId);
    return own && own.getTime() > this.everyoneChangedAt.getTime() ? own : this.everyoneChangedAt;
  }

  /**
   * Takes one request from the client's budget (an API session's, or an address's before login), or refuses it:
   * 429 RATE_LIMITED with Retry-After (seconds).
   */
  async spend(client: { apiSessionId: string } | { address: string }): Promise<void> {
    const [budget, key, burst] =
      'apiSessionId' in client
        ? [this.budget, client.apiSessionId, this.rateLimit.burst]
        : [this.addressBudget, client.address, this.rateLimit.burst * ADDRESS_FACTOR];
    const wait = await budget.takeIfAny(key);
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      const err = new ApiError('RATE_LIMITED', {
        message: `this client made more than ${burst} requests in a burst; try again in ${seconds}s`,
      });
      // Sent as Retry-After by the error path (as the login throttle's refusals are).
      throw Object.assign(err, { retryAfterSeconds: seconds });
    }
  }
}
