import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { ApiError } from '../../protocol/errors.js';
import { LruCache } from '../store/driver.js';
import { SessionActivity } from './session-activity.js';
import type { Store } from '../store/store.js';
import type { Principal } from '../server/types.js';
import { isDisabled } from './identity-state.js';

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** API session ids are cuid-like (OpenZiti uses cuids); tokens are UUIDv4 and only their hash is stored. */
export function newSessionId(): string {
  return `c${Date.now().toString(36)}${randomBytes(10).toString('hex')}`;
}

const UNAUTHORIZED = () => new ApiError('UNAUTHORIZED');

/** How many resolved sessions are kept: a bounded cache, whatever the number of clients. */
const RESOLVED_CACHE_SIZE = 4096;

/** What authorisation needs of a session and its identity, as read in one statement. */
interface Resolved {
  sessionId: string;
  identityId: string;
  authenticatorId: string;
  name: string;
  isAdmin: boolean;
  disabledAt: string | null;
  disabledUntil: string | null;
  /** The latest request known to this process: the database's, or a later one not written yet (Unix ms). */
  lastActivityMs: number;
  mfaPending: boolean;
  /** The cache generation the row was read in: a write since then makes it stale. */
  generation: number;
  /** Store.cacheEpoch when it was read: writes this process may not have heard of since make it stale. */
  epoch: number;
}

/**
 * Writes that can change what a resolved session says: the identity (admin, name, disabled), the session itself
 * (ended, its MFA passed), the credentials and auth policies that end sessions.
 */
const PRINCIPAL_RESOURCES = new Set(['identity', 'api-session', 'authenticator', 'auth-policy', '*']);

/**
 * API sessions: created at authentication, resolved from the token on every request, refreshed by activity,
 * ended by logout, timeout, deletion, disabling the identity, or a change or removal of its credentials.
 */
export class ApiSessions {
  /**
   * Keyed by the token itself, not its hash: hashing it cost more than the rest of a resolve that hits. The tokens
   * pass through this process's memory with every request anyway; only the database must never hold them.
   */
  private readonly resolved = new LruCache<string, Resolved>(RESOLVED_CACHE_SIZE);
  private generation = 0;
  /** Every request refreshes its session's activity; one statement now and then writes them all. */
  private readonly activity: SessionActivity;

  constructor(
    private readonly store: Store,
    private readonly timeoutMs: number,
  ) {
    this.activity = new SessionActivity(store.sessionActivity);
    // Every request resolves its token; the answer is kept until a write could change it. Any such write starts a
    // new generation (the sessions' activity is written apart and tells no write), as it is made and again when it
    // commits, so that nothing read before a commit outlives it (Store.onWrite). It is kept only while this process
    // hears of every write to the database (Store.cacheEpoch): its own, and those of controllers sharing it as each
    // request catches up (Store.catchUp).
    store.onWrite((event) => {
      // A new row changes no session already resolved; a change or a removal may.
      if (!PRINCIPAL_RESOURCES.has(event.resource) || event.op === 'insert') return;
      this.generation++;
    });
  }

  async create(input: {
    identityId: string;
    authenticatorId: string;
    ipAddress: string;
    configTypes: string[];
    now: Date;
    mfaRequired?: boolean;
  }): Promise<{
    id: string;
    token: string;
  }> {
    const token = randomUUID();
    const id = newSessionId();
    const { identityId, authenticatorId, ipAddress, configTypes } = input;
    const now = input.now.toISOString();
    const isMfaRequired = input.mfaRequired === true;
    await this.sessions().insert(
      {
        identityId,
        authenticatorId,
        ipAddress,
        configTypes,
        tokenHash: hashToken(token),
        lastActivityAt: now,
        isMfaRequired,
      },
      { id, now },
    );
    return { id, token };
  }

  /** Resolves a token to its caller; refuses unknown, expired, and disabled-identity sessions alike (401). */
  async resolve(token: string, now: Date): Promise<Principal> {
    const epoch = this.store.cacheEpoch;
    let session = epoch === undefined ? undefined : this.resolved.get(token);
    if (!session || session.generation !== this.generation || session.epoch !== epoch) session = await this.read(token);
    // Activity is recorded without telling other controllers (it changes nothing they keep): the session may have
    // been used through another since it was kept here, so a kept one that looks idle too long is read again.
    else if (now.getTime() - session.lastActivityMs > this.timeoutMs) session = await this.read(token);
    if (!session) throw UNAUTHORIZED();
    const nowMs = now.getTime();
    if (nowMs - session.lastActivityMs > this.timeoutMs) {
      await this.delete(session.sessionId);
      throw UNAUTHORIZED();
    }
    if (isDisabled(session, now)) throw UNAUTHORIZED();
    // Activity is bookkeeping, not a change of the session: written later, with many others (SessionActivity).
    this.activity.seen(session.sessionId, nowMs);
    if (nowMs > session.lastActivityMs) session.lastActivityMs = nowMs;
    return {
      apiSessionId: session.sessionId,
      identityId: session.identityId,
      identityName: session.name,
      isAdmin: session.isAdmin,
      authenticatorId: session.authenticatorId,
      token,
      expiresAt: new Date(now.getTime() + this.timeoutMs),
      mfaPending: session.mfaPending,
    };
  }

  /** One statement for the session and what authorisation needs of its identity; kept for the next request. */
  private async read(token: string): Promise<Resolved | undefined> {
    const generation = this.generation;
    const epoch = this.store.cacheEpoch;
    const row = await this.sessions().findOne(
      { tokenHash: hashToken(token) },
      {
        columns: ['identityId', 'authenticatorId', 'lastActivityAt', 'isMfaRequired', 'isMfaComplete'],
        include: { identityId: ['name', 'isAdmin', 'disabledAt', 'disabledUntil'] },
      },
    );
    if (!row) return undefined;
    const identity = (row.included as Record<string, Record<string, unknown>>).identityId;
    const resolved: Resolved = {
      sessionId: row.id,
      identityId: row.identityId as string,
      authenticatorId: row.authenticatorId as string,
      name: identity.name as string,
      isAdmin: identity.isAdmin === true,
      disabledAt: (identity.disabledAt as string | null) ?? null,
      disabledUntil: (identity.disabledUntil as string | null) ?? null,
      lastActivityMs: Math.max(Date.parse(row.lastActivityAt as string), this.activity.unwritten(row.id) ?? 0),
      mfaPending: row.isMfaRequired === true && row.isMfaComplete !== true,
      // Stamped with the generation the read began in: a write during the read already made it stale.
      generation,
      epoch: epoch ?? -1,
    };
    if (epoch !== undefined) this.resolved.set(token, resolved);
    return resolved;
  }

  expiresAt(lastActivityAt: string): Date {
    return new Date(Date.parse(lastActivityAt) + this.timeoutMs);
  }

  async delete(id: string): Promise<void> {
    await this.sessions().deleteWhere({ id });
  }

  /**
   * Ends the identity's sessions: when its credentials change or go, or it is disabled. `keep` spares one session,
   * the one that made the change itself (an identity changing its own password stays logged in there).
   */
  async deleteForIdentity(identityId: string, keep?: string): Promise<number> {
    return this.sessions().deleteWhere(keep === undefined ? { identityId } : { identityId, id: { ne: keep } });
  }

  /** Removes sessions idle past the timeout; run periodically so they do not pile up. */
  async sweep(now: Date): Promise<number> {
    // This process's own activity first: a session used in the last moments is not idle.
    await this.activity.write();
    const cutoff = new Date(now.getTime() - this.timeoutMs).toISOString();
    return this.sessions().deleteWhere({ lastActivityAt: { lt: cutoff } });
  }

  /** Writes the activity not written yet: before the store closes. */
  flushActivity(): Promise<void> {
    return this.activity.write();
  }

  private sessions() {
    return this.store.repo('api-session');
  }
}
