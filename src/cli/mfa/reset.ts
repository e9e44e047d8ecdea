import { Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { identity } from '../../resources/identity.js';
import { ApiError } from '../../protocol/errors.js';
import { NotFoundError } from '../../console/errors.js';
import type { Deps } from '../deps.js';
import { confirmOrDecline } from '../generic/confirm.js';
import { yesOption } from '../generic/flags.js';
import { withMeta } from '../generic/meta.js';
import { entityPath, resolveId } from '../generic/resolve.js';
import { nameArgument } from '../generic/words.js';

/** `ctl identity mfa-reset NAME`: an admin removes an identity's MFA, for one that lost its authenticator and codes. */
export function buildIdentityMfaReset(deps: Deps): CommandUnknownOpts {
  const command = withMeta(
    new Command('mfa-reset').addArgument(nameArgument(identity, 'the identity whose MFA to remove')),
    {
      description:
        "Remove an identity's MFA enrollment (admins), for one that lost its authenticator app and its recovery " +
        'codes: it then logs in with its password alone (unless its auth ' +
        'policy requires TOTP) and can enroll again with `ctl mfa enable`',
      examples: ['ctl identity mfa-reset alice', 'ctl identity mfa-reset alice --yes'],
    },
  ).addOption(yesOption());
  return command.action(async (ref, o) => runIdentityMfaReset({ ref, yes: Boolean(o.yes) }, deps));
}

export async function runIdentityMfaReset(opts: { ref: string; yes: boolean }, deps: Deps): Promise<void> {
  const api = await deps.api();
  const id = await resolveId(api, identity, opts.ref);
  await confirmOrDecline(deps, {
    yes: opts.yes,
    action: `removing the MFA of identity "${opts.ref}"`,
    question: `Remove the MFA of identity "${opts.ref}"? It will log in without a second factor.`,
  });
  try {
    await api.delete(`${entityPath(identity, id)}/mfa`);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404)
      throw new NotFoundError(`identity "${opts.ref}" has no MFA enrollment`);
    throw err;
  }
  deps.io.info(`removed the MFA of identity "${opts.ref}"`);
}
