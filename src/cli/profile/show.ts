import { Argument, Command } from '@commander-js/extra-typings';
import { completeWith } from '../completion/hints.js';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { asFormat } from '../output/formats.js';
import { renderOne } from '../output/render.js';
import { profileControllers } from '../../client/profiles.js';
import type { Profile, StoredSession } from '../../client/profiles.js';
import { ApiError } from '../../protocol/errors.js';
import { certificatePems } from '../../protocol/pem.js';

/** How long `profile show` waits for the controller before showing what it saved (unless --timeout says). */
const CHECK_TIMEOUT_MS = 5_000;

export function buildProfileShow(deps: Deps, run = runProfileShow) {
  return withMeta(new Command('show'), {
    description:
      'Show a profile: controller, user, the CA it trusts and its session (never the token), ' +
      'whose expiry the controller is asked for',
    examples: ['ctl profile show', 'ctl profile show prod -o json'],
  })
    .addArgument(
      completeWith(new Argument('[name]', 'profile name (default: the one commands use now)'), { kind: 'profile' }),
    )
    .action(async (name) => run({ name }, deps));
}

export async function runProfileShow(opts: { name?: string }, deps: Deps): Promise<void> {
  const sessions = await deps.sessions();
  const store = await sessions.profiles();
  const active = (await sessions.current()).profileName;
  const name = opts.name ?? active;
  const profile = store.getExisting(name);
  const session = store.session(name);
  const { certSummary } = await import('../../protocol/pkcs7.js');
  const pems = certificatePems(profile.caPem ?? '');
  await renderOne(
    deps.io,
    {
      name,
      current: name === active,
      controller: profile.controller,
      controllers: profileControllers(profile),
      username: profile.username,
      trust: profile.caPem ? 'CA bundle saved at login' : 'system CA store',
      caCertificates: pems.map((pem) => {
        const c = certSummary(pem);
        return { subject: c.subject, sha256: c.sha256, expires: c.notAfter };
      }),
      session: session ? await sessionNow(name, profile, session, deps) : { stored: false },
    },
    { format: asFormat(deps.globals().output) },
  );
}

/**
 * The stored session as it stands now. The controller extends a session's expiry with every request it serves, so
 * the expiry saved at login goes stale: ask the controller (and save what it says); when it cannot be asked, show
 * the saved expiry as what it is, the last one seen.
 */
async function sessionNow(
  name: string,
  profile: Profile,
  stored: StoredSession,
  deps: Deps,
): Promise<Record<string, unknown>> {
  const { createApiClient } = await import('../../client/http.js');
  const net = deps.net();
  const timeoutMs = net.timeoutMs ?? CHECK_TIMEOUT_MS;
  const [baseUrl, ...fallbackUrls] = profileControllers(profile);
  const api = createApiClient({ baseUrl, fallbackUrls, caPem: profile.caPem, token: stored.token, ...net, timeoutMs });
  try {
    const { expiresAt } = await api.get<{ expiresAt?: string }>('/current-api-session');
    await (await (await deps.sessions()).profiles()).setToken(name, { token: stored.token, expiresAt });
    return { stored: true, active: true, expiresAt };
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      return { stored: true, active: false, note: `expired or revoked: log in again with ctl login --profile ${name}` };
    }
    return { stored: true, lastSeenExpiresAt: stored.expiresAt, note: `not checked: ${(err as Error).message}` };
  }
}
