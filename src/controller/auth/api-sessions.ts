import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { ApiError } from '../../protocol/errors.js';
import type { Store } from '../store/store.js';
import type { Principal } from '../server/types.js';
import { isDisabled } from './identity-state.js';

/** A write of lastActivityAt at most this often per session: every request refreshes it, few requests write. */
const ACTIVITY_WRITE_INTERVAL_MS = 5_000;

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** API session ids are cuid-like (OpenZiti uses cuids); tokens are UUIDv4 and only their hash is stored. */
function newSessionId(): string {
  return `c${Date.now().toString(36)}${randomBytes(10).toString('hex')}`;
}

const UNAUTHORIZED = () => new ApiError('UNAUTHORIZED');

/**
 * API sessions: created at authentication, resolved from the token on every request, refreshed by activity,
 * ended by logout, timeout, deletion, disabling the identity, or a change or removal of its credentials.
 */
export class ApiSessions {
  constructor(
    private readonly store: Store,
    private readonly timeoutMs: number,
  ) {}

  async create(input: { identityId: string; authenticatorId: string; ipAddress: string; configTypes: string[]; now: Date }): Promise<{
    id: string;
    token: string;
  }> {
    const token = randomUUID();
    const id = newSessionId();
    const { identityId, authenticatorId, ipAddress, configTypes } = input;
    const now = input.now.toISOString();
    await this.sessions().insert({ identityId, authenticatorId, ipAddress, configTypes, tokenHash: hashToken(token), lastActivityAt: now }, { id, now });
    return { id, token };
  }

  /** Resolves a token to its caller; refuses unknown, expired, and disabled-identity sessions alike (401). */
  async resolve(token: string, now: Date): Promise<Principal> {
    // One statement for the session and what authorisation needs of its identity: every request runs it.
    const session = await this.sessions().findOne(
      { tokenHash: hashToken(token) },
      { columns: ['identityId', 'authenticatorId', 'lastActivityAt'], include: { identityId: ['name', 'isAdmin', 'disabledAt', 'disabledUntil'] } },
    );
    if (!session) throw UNAUTHORIZED();
    const last = Date.parse(session.lastActivityAt as string);
    if (now.getTime() - last > this.timeoutMs) {
      await this.delete(session.id);
      throw UNAUTHORIZED();
    }
    const identity = (session.included as Record<string, Record<string, unknown>>).identityId;
    if (isDisabled(identity as unknown as { disabledAt: string | null; disabledUntil: string | null }, now)) throw UNAUTHORIZED();
    if (now.getTime() - last >= ACTIVITY_WRITE_INTERVAL_MS) {
      // Activity is bookkeeping, not a change of the session: its updatedAt stays as it was.
      await this.sessions().update(session.id, { lastActivityAt: now.toISOString() }, session.updatedAt);
    }
    return {
      apiSessionId: session.id,
      identityId: session.identityId as string,
      identityName: identity.name as string,
      isAdmin: identity.isAdmin === true,
      authenticatorId: session.authenticatorId as string,
      token,
      expiresAt: new Date(now.getTime() + this.timeoutMs),
    };
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
    const cutoff = new Date(now.getTime() - this.timeoutMs).toISOString();
    return this.sessions().deleteWhere({ lastActivityAt: { lt: cutoff } });
  }

  private sessions() {
    return this.store.repo('api-session');
  }
}
