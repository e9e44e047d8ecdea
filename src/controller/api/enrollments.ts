import { randomUUID } from 'node:crypto';
import { ApiError, invalidField } from '../../protocol/errors.js';
import type { Services } from '../services.js';
import { newId } from '../store/repository.js';

export type EnrollmentRequest = { method: 'ott' } | { method: 'updb'; username: string };

/**
 * Reads the `enrollment` member of an identity create body: `{ott: true}` or `{updb: "<username>"}`.
 * `ottca` needs certificate authorities, which this controller does not manage yet: it is refused, not ignored.
 */
export function parseEnrollmentRequest(value: unknown): EnrollmentRequest | undefined {
  if (value === undefined || value === null) return undefined;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined && obj[k] !== null && obj[k] !== false);
  if (keys.length === 0) return undefined;
  if (keys.length > 1) throw invalidField('enrollment', 'give exactly one enrollment method: ott, ottca or updb', value);
  const [method] = keys;
  if (method === 'ott') {
    if (obj.ott !== true) throw invalidField('enrollment.ott', 'must be true', obj.ott);
    return { method: 'ott' };
  }
  if (method === 'updb') {
    const username = obj.updb;
    if (typeof username !== 'string' || username.length < 4 || username.length > 100) {
      throw invalidField('enrollment.updb', 'must be a username of 4 to 100 characters', username);
    }
    return { method: 'updb', username };
  }
  if (method === 'ottca') {
    throw invalidField('enrollment.ottca', 'ottca enrollment needs certificate authorities, which this controller does not support yet', obj.ottca);
  }
  throw invalidField(`enrollment.${method}`, 'is not a known enrollment method (ott, ottca, updb)', obj[method]);
}

export interface PreparedEnrollment {
  id: string;
  method: 'ott' | 'updb';
  token: string;
  jwt: string;
  expiresAt: string;
  username: string | null;
}

/** Signs the enrollment JWT before the write transaction (signing is async; the transaction is not). */
export async function prepareEnrollment(services: Services, identityId: string, request: EnrollmentRequest, now: Date): Promise<PreparedEnrollment> {
  if (request.method === 'updb') assertUsernameFree(services, request.username);
  const token = randomUUID();
  const expires = new Date(now.getTime() + services.config.enrollmentDurationMinutes * 60_000);
  const jwt = await services.enrollmentSigner.sign({ em: request.method, sub: identityId, jti: token, exp: expires });
  return {
    id: newId(),
    method: request.method,
    token,
    jwt,
    expiresAt: expires.toISOString(),
    username: request.method === 'updb' ? request.username : null,
  };
}

function assertUsernameFree(services: Services, username: string): void {
  const taken =
    services.store.prepare(`SELECT 1 FROM authenticators WHERE "username" = ?`).get(username) ??
    services.store.prepare(`SELECT 1 FROM enrollments WHERE "username" = ?`).get(username);
  if (taken) throw invalidField('enrollment.updb', `the username '${username}' is already in use`, username);
}

/** Stores a prepared enrollment; call inside the transaction that creates the identity. */
export function insertEnrollment(services: Services, identityId: string, e: PreparedEnrollment, now: string): void {
  try {
    services.store
      .prepare(
        `INSERT INTO enrollments ("id", "identityId", "method", "expiresAt", "username", "token", "jwt", "createdAt", "updatedAt")
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(e.id, identityId, e.method, e.expiresAt, e.username, e.token, e.jwt, now, now);
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
      throw new ApiError('ENROLLMENT_EXISTS', { cause: { field: 'method', reason: `an ${e.method} enrollment already exists for the identity`, value: e.method } });
    }
    throw err;
  }
}
