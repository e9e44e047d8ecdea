// `ctl login --ext-jwt FILE|-`: authentication with a JWT an external identity provider issued (the controller
// checks it against its signers). The token is read from a file or stdin, never from the command line, where
// other users of the machine could read it in the process list.
import path from 'node:path';
import type { LoginResult, TrustFlags } from '../../client/session-manager.js';
import { UsageError } from '../../console/errors.js';
import type { Deps } from '../deps.js';
import type { LoginOptions } from './login.js';
import { readToken } from '../generic/token-file.js';

/**
 * Logs in with the token and says so; the caller adds what every login method says after (MFA to set up, a profile
 * that is not the current one). `totp` is the code given up front (--totp or --totp-stdin), read after the token.
 */
export async function runExtJwtLogin(
  opts: LoginOptions,
  deps: Deps,
  trust: TrustFlags,
  totp: () => Promise<string | undefined>,
): Promise<{ profileName: string; result: LoginResult }> {
  const others = [
    opts.username !== undefined && '-u',
    opts.passwordStdin && '--password-stdin',
    opts.identity !== undefined && '--identity',
    opts.cert !== undefined && '--cert',
    opts.key !== undefined && '--key',
  ].filter((f): f is string => typeof f === 'string');
  if (others.length > 0)
    throw new UsageError(`--ext-jwt logs in with a token: ${others.join(' and ')} cannot be used with it`);
  const token = await readToken(opts.extJwt!, deps);
  const sessions = await deps.sessions();
  const { profileName } = await sessions.current();
  const source = opts.extJwt === '-' ? '-' : path.resolve(opts.extJwt!);
  const result = await sessions.loginWithExtJwt({
    url: opts.url,
    profileName,
    token,
    source,
    trust,
    totp: await totp(),
  });
  deps.io.info(
    `Logged in to ${result.profile.controller} as ${result.identityName ?? "the token's identity"} ` +
      `with an external JWT (profile ${profileName})`,
  );
  if (result.replacedController) deps.io.info(`Profile ${profileName} pointed to ${result.replacedController} before.`);
  return { profileName, result };
}
