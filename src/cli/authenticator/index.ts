// The authenticator noun's own verbs, beside the generic ones: `revert` (the authenticator goes, an enrollment takes
// its place). Registered in src/cli/tree.ts with nounCommands.
import { Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { authenticator } from '../../resources/authenticator.js';
import type { Deps } from '../deps.js';
import { expiryOptions, withNewJwt, type NewJwtOptions } from '../enrollment/index.js';
import { withMeta } from '../generic/meta.js';
import { entityPath } from '../generic/resolve.js';
import type { NounModule } from '../nouns/verbs.js';

export interface AuthenticatorRevertOptions extends NewJwtOptions {
  id: string;
}

export function buildAuthenticatorRevert(deps: Deps, run = runAuthenticatorRevert): CommandUnknownOpts {
  const command = expiryOptions(
    withMeta(new Command('revert').argument('<id>', 'the authenticator (`ctl identity authenticators NAME` shows ids)'), {
      description:
        'Replace an authenticator by an enrollment, so that the identity enrolls again: a password becomes a updb enrollment ' +
        "(same username), a certificate this controller issued an ott one, a CA's certificate an ottca one. The credential " +
        "stops working and the identity's sessions end. The enrollment JWT goes to stdout, or to --jwt-output FILE.",
      examples: ['ctl authenticator revert 4fG7kq2 --jwt-output laptop-7.jwt', 'ctl authenticator revert 4fG7kq2 --expires-in 1d'],
    }),
  );
  return command.action(async (id, o) => run({ id, ...o }, deps));
}

export async function runAuthenticatorRevert(opts: AuthenticatorRevertOptions, deps: Deps): Promise<void> {
  await withNewJwt(opts, deps, 'reverted the authenticator to', async (api, expiresAt) => {
    const created = await api.post<{ id: string }>(`${entityPath(authenticator, opts.id)}/re-enroll`, { expiresAt });
    return created.id;
  });
}

export const verbs: NounModule['verbs'] = {
  revert: (deps) => buildAuthenticatorRevert(deps),
};
