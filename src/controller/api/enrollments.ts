import { randomUUID } from 'node:crypto';
import { ApiError, invalidField } from '../../protocol/errors.js';
import type { Runtime } from '../runtime.js';
import { newId } from '../store/repository.js';
import type { ResourceBehaviour } from '../registry.js';
import { resource } from '../../resources/index.js';
import { toWire } from './present.js';

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

/** Signs the enrollment JWT before the write transaction, so the transaction holds no slow work. */
export async function prepareEnrollment(rt: Runtime, identityId: string, request: EnrollmentRequest, now: Date): Promise<PreparedEnrollment> {
  if (request.method === 'updb') await assertUsernameFree(rt, request.username);
  const token = randomUUID();
  const expires = new Date(now.getTime() + rt.config.enrollmentDurationMinutes * 60_000);
  const jwt = await rt.enrollmentSigner.sign({ em: request.method, sub: identityId, jti: token, exp: expires });
  return {
    id: newId(),
    method: request.method,
    token,
    jwt,
    expiresAt: expires.toISOString(),
    username: request.method === 'updb' ? request.username : null,
  };
}

async function assertUsernameFree(rt: Runtime, username: string): Promise<void> {
  const taken = (await rt.store.repo('authenticator').exists({ username })) || (await rt.store.repo('enrollment').exists({ username }));
  if (taken) throw invalidField('enrollment.updb', `the username '${username}' is already in use`, username);
}

/** Stores a prepared enrollment; call inside the transaction that creates the identity. */
export async function insertEnrollment(rt: Runtime, identityId: string, e: PreparedEnrollment, now: string): Promise<void> {
  const { id, method, expiresAt, username, token, jwt } = e;
  try {
    await rt.store.repo('enrollment').insert({ identityId, method, expiresAt, username, token, jwt }, { id, now });
  } catch (err) {
    if (err instanceof ApiError && (err.cause as { field?: string } | undefined)?.field === 'method') {
      throw new ApiError('ENROLLMENT_EXISTS', { cause: { field: 'method', reason: `an ${e.method} enrollment already exists for the identity`, value: e.method } });
    }
    throw err;
  }
}

// OpenZiti's enrollment detail requires a `details` map; this controller has nothing to put in it yet.
export const enrollmentBehaviour: ResourceBehaviour = {
  resource: 'enrollment',
  present: (rows) => rows.map((row) => ({ ...toWire(resource('enrollment'), row), details: {} })),
};
