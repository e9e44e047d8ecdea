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

interface SessionRow {
  id: string;
  identityId: string;
  authenticatorId: string;
  lastActivityAt: string;
  name: string;
  isAdmin: number;
  disabledAt: string | null;
  disabledUntil: string | null;
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

  create(input: { identityId: string; authenticatorId: string; ipAddress: string; configTypes: string[]; now: Date }): {
    id: string;
    token: string;
  } {
    const token = randomUUID();
    const id = newSessionId();
    const now = input.now.toISOString();
    this.store
      .prepare(
        `INSERT INTO api_sessions ("id", "identityId", "tokenHash", "authenticatorId", "ipAddress", "lastActivityAt", "configTypes", "createdAt", "updatedAt")
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, input.identityId, hashToken(token), input.authenticatorId, input.ipAddress, now, JSON.stringify(input.configTypes), now, now);
    return { id, token };
  }

  /** Resolves a token to its caller; refuses unknown, expired, and disabled-identity sessions alike (401). */
  resolve(token: string, now: Date): Principal {
    const row = this.store
      .prepare(
        `SELECT s."id", s."identityId", s."authenticatorId", s."lastActivityAt", i."name", i."isAdmin", i."disabledAt", i."disabledUntil"
         FROM api_sessions s JOIN identities i ON i."id" = s."identityId" WHERE s."tokenHash" = ?`,
      )
      .get(hashToken(token)) as SessionRow | undefined;
    if (!row) throw UNAUTHORIZED();
    const last = Date.parse(row.lastActivityAt);
    if (now.getTime() - last > this.timeoutMs) {
      this.delete(row.id);
      throw UNAUTHORIZED();
    }
    if (isDisabled(row, now)) throw UNAUTHORIZED();
    if (now.getTime() - last >= ACTIVITY_WRITE_INTERVAL_MS) {
      this.store.prepare(`UPDATE api_sessions SET "lastActivityAt" = ? WHERE "id" = ?`).run(now.toISOString(), row.id);
    }
    return {
      apiSessionId: row.id,
      identityId: row.identityId,
      identityName: row.name,
      isAdmin: row.isAdmin === 1,
      authenticatorId: row.authenticatorId,
      token,
      expiresAt: new Date(now.getTime() + this.timeoutMs),
    };
  }

  expiresAt(lastActivityAt: string): Date {
    return new Date(Date.parse(lastActivityAt) + this.timeoutMs);
  }

  delete(id: string): void {
    this.store.prepare(`DELETE FROM api_sessions WHERE "id" = ?`).run(id);
  }

  /**
   * Ends the identity's sessions: when its credentials change or go, or it is disabled. `keep` spares one session,
   * the one that made the change itself (an identity changing its own password stays logged in there).
   */
  deleteForIdentity(identityId: string, keep?: string): number {
    if (keep === undefined) return this.store.prepare(`DELETE FROM api_sessions WHERE "identityId" = ?`).run(identityId).changes;
    return this.store.prepare(`DELETE FROM api_sessions WHERE "identityId" = ? AND "id" != ?`).run(identityId, keep).changes;
  }

  /** Removes sessions idle past the timeout; run periodically so they do not pile up. */
  sweep(now: Date): number {
    const cutoff = new Date(now.getTime() - this.timeoutMs).toISOString();
    return this.store.prepare(`DELETE FROM api_sessions WHERE "lastActivityAt" < ?`).run(cutoff).changes;
  }
}
