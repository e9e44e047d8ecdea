import { Command } from '@commander-js/extra-typings';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { buildProfileList } from './list.js';
import { buildProfileRemove } from './remove.js';
import { buildProfileShow } from './show.js';
import { buildProfileUse } from './use.js';

/** `ctl profile ...`: the saved controller profiles (created by `ctl login`). */
export function buildProfile(deps: Deps) {
  return withMeta(new Command('profile'), {
    description: 'Manage saved profiles: a controller, the CA trusted for it, a user and their session',
    examples: ['ctl profile list', 'ctl profile use prod', 'ctl profile show', 'ctl profile remove lab'],
  })
    .addCommand(buildProfileList(deps))
    .addCommand(buildProfileUse(deps))
    .addCommand(buildProfileShow(deps))
    .addCommand(buildProfileRemove(deps));
}
