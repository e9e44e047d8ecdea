import { Command } from '@commander-js/extra-typings';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { asFormat } from '../output/formats.js';
import { renderOne } from '../output/render.js';

export function buildWhoami(deps: Deps, run = runWhoami) {
  return withMeta(new Command('whoami'), {
    description:
      'Show who you are logged in as: identity, admin flag, profile ' +
      '(or the CTL_ credentials), controller and session expiry',
    examples: ['ctl whoami', 'ctl whoami -o json', 'ctl whoami --profile prod'],
  }).action(async () => run({}, deps));
}

interface CurrentIdentity {
  id: string;
  name: string;
  isAdmin?: boolean;
}

interface CurrentApiSession {
  expiresAt?: string;
}

const ENV_CREDENTIALS = {
  'env-token': 'CTL_TOKEN',
  'env-password': 'CTL_USERNAME and CTL_PASSWORD',
} as const;

export async function runWhoami(_opts: Record<string, never>, deps: Deps): Promise<void> {
  const ctx = await (await deps.sessions()).current();
  const api = await deps.api();
  const [identity, session] = await Promise.all([
    api.get<CurrentIdentity>('/current-identity'),
    api.get<CurrentApiSession>('/current-api-session'),
  ]);
  await renderOne(
    deps.io,
    {
      name: identity.name,
      id: identity.id,
      admin: identity.isAdmin === true,
      // Environment credentials use no profile's session (and CTL_CONTROLLER perhaps none of its controller):
      // naming the profile would claim otherwise, so say where the credentials came from instead.
      ...(ctx.credentials === 'profile'
        ? { profile: ctx.profileName }
        : { credentials: ENV_CREDENTIALS[ctx.credentials!] }),
      controller: api.baseUrl,
      sessionExpiresAt: session.expiresAt,
    },
    { format: asFormat(deps.globals().output) },
  );
}
