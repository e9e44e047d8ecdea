import { Command, Option } from '@commander-js/extra-typings';
import { profileControllers } from '../../client/profiles.js';
import type { ColumnDef } from '../../resources/types.js';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { asFormat, isHuman } from '../output/formats.js';
import { render } from '../output/render.js';

export interface ProfileListOptions {
  quiet?: boolean;
}

const COLUMNS: ColumnDef[] = [
  { header: 'current', field: 'current' },
  { header: 'name', field: 'name' },
  { header: 'controller', field: 'controller' },
  { header: 'controllers', field: 'controllers', priority: 1 },
  { header: 'username', field: 'username' },
  { header: 'session', field: 'loggedIn' },
  { header: 'expiry last seen', field: 'sessionExpiresAt', priority: 1 },
  { header: 'ca fingerprint', field: 'caFingerprint', priority: 1 },
];

export function buildProfileList(deps: Deps, run = runProfileList) {
  return withMeta(new Command('list').alias('ls'), {
    description: 'List the saved profiles; the one commands use now is marked *',
    examples: ['ctl profile list', 'ctl profile list -o json', 'ctl profile ls -q'],
  })
    .addOption(new Option('-q, --quiet', 'print only profile names, one per line'))
    .action(async (o) => run(o, deps));
}

export async function runProfileList(opts: ProfileListOptions, deps: Deps): Promise<void> {
  const sessions = await deps.sessions();
  const store = await sessions.profiles();
  const active = (await sessions.current()).profileName;
  const rows = store.list().map((p) => {
    const session = store.session(p.name);
    return {
      name: p.name,
      current: p.name === active,
      controller: p.controller,
      controllers: profileControllers(p),
      username: p.username,
      caFingerprint: p.caFingerprint,
      loggedIn: session !== undefined,
      sessionExpiresAt: session?.expiresAt,
    };
  });
  if (opts.quiet) {
    for (const row of rows) deps.io.out(row.name);
    return;
  }
  const format = asFormat(deps.globals().output);
  // Booleans are for programs; a person scans for a star and words.
  const shown = isHuman(format)
    ? rows.map((r) => ({ ...r, current: r.current ? '*' : '', loggedIn: r.loggedIn ? 'logged in' : 'none' }))
    : rows;
  await render(deps.io, shown, {
    format,
    columns: COLUMNS,
    empty: 'no profiles yet: create one with `ctl login URL -u USER`',
  });
}
