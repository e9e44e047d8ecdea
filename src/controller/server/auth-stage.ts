import type { IncomingMessage } from 'node:http';
import { ApiError } from '../../protocol/errors.js';
import type { ApiSessions } from '../auth/api-sessions.js';
import type { Access, Principal } from './types.js';

/** A credential header's value, trimmed: the first when it was sent more than once. */
export function headerOf(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers[name];
  return (Array.isArray(header) ? header[0] : header)?.trim();
}

/** The session token from `zt-session`, or else from `Authorization: Bearer`. */
export function tokenOf(req: IncomingMessage): string | undefined {
  return headerOf(req, 'zt-session') || bearerOf(req);
}

/** The credential in `Authorization: Bearer`, if any: a session token, or an external signer's JWT. */
export function bearerOf(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization?.trim();
  const m = auth ? /^Bearer\s+(.+)$/i.exec(auth) : null;
  return m ? m[1].trim() : undefined;
}

/**
 * The authentication and authorisation stage, run before every handler from the route's declared access.
 * Every refusal is 401 UNAUTHORIZED, as OpenZiti does (no 403): non-admins on the management API included.
 */
export async function authorise(
  req: IncomingMessage,
  access: Access,
  sessions: ApiSessions,
  now: Date,
  partialSession = false,
): Promise<Principal | undefined> {
  if (access === 'public') return undefined;
  const token = tokenOf(req);
  if (!token)
    throw new ApiError('UNAUTHORIZED', {
      message: 'no session token was provided (zt-session header or Authorization: Bearer)',
    });
  const principal = await sessions.resolve(token, now);
  // A session that has yet to pass MFA is not authenticated for anything but completing it (OpenZiti: 401).
  if (principal.mfaPending && !partialSession) {
    throw new ApiError('UNAUTHORIZED', {
      message: 'the session must pass MFA first (POST /authenticate/mfa with a one-time or recovery code)',
    });
  }
  if (access === 'admin' && !principal.isAdmin) {
    throw new ApiError('UNAUTHORIZED', { message: 'the operation requires an administrator' });
  }
  return principal;
}
