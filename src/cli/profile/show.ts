import { Argument, Command } from '@commander-js/extra-typings';
import { completeWith } from '../completion/hints.js';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { asFormat } from '../output/formats.js';
import { renderOne } from '../output/render.js';

export function buildProfileShow(deps: Deps, run = runProfileShow) {
  return withMeta(new Command('show'), {
    description: 'Show a profile: controller, user, the CA it trusts and whether a session is stored (never the token)',
    examples: ['ctl profile show', 'ctl profile show prod -o json'],
  })
    .addArgument(completeWith(new Argument('[name]', 'profile name (default: the one commands use now)'), { kind: 'profile' }))
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
  const pems = profile.caPem?.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  await renderOne(
    deps.io,
    {
      name,
      current: name === active,
      controller: profile.controller,
      username: profile.username,
      trust: profile.caPem ? 'CA bundle saved at login' : 'system CA store',
      caCertificates: pems.map((pem) => {
        const c = certSummary(pem);
        return { subject: c.subject, sha256: c.sha256, expires: c.notAfter };
      }),
      session: session ? { stored: true, expiresAt: session.expiresAt } : { stored: false },
    },
    { format: asFormat(deps.globals().output) },
  );
}
