// The authenticator noun's own verbs, beside the generic ones: `revert` (the authenticator goes, an enrollment takes
// its place) and `request-extend` (the holder of a certificate is asked to extend it early). Registered in
// src/cli/tree.ts with nounCommands.
import { Command, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { authenticator } from '../../resources/authenticator.js';
import type { Deps } from '../deps.js';
import { confirmOrDecline } from '../generic/confirm.js';
import { yesOption } from '../generic/flags.js';
import { expiryOptions, withNewJwt, type NewJwtOptions } from '../generic/new-jwt.js';
import { withMeta } from '../generic/meta.js';
import { entityPath } from '../generic/resolve.js';
import { nameArgument } from '../generic/words.js';
import type { NounModule } from '../nouns/verbs.js';

export interface AuthenticatorRevertOptions extends NewJwtOptions {
  id: string;
  yes?: boolean;
}

/** The id argument of the authenticator verbs, completed with the ids the controller knows. */
const authenticatorId = (description: string) =>
  nameArgument(authenticator, `${description} (\`ctl identity authenticators NAME\` shows ids)`);

export function buildAuthenticatorRevert(deps: Deps, run = runAuthenticatorRevert): CommandUnknownOpts {
  const command = expiryOptions(
    withMeta(new Command('revert').addArgument(authenticatorId('the authenticator')), {
      description:
        'Replace an authenticator by an enrollment, so that the identity enrolls again: a password becomes a updb ' +
        "enrollment (same username), a certificate this controller issued an ott one, a CA's certificate an ottca " +
        "one. The credential stops working and the identity's sessions " +
        'end. The enrollment JWT goes to stdout, or to --jwt-output FILE.',
      examples: [
        'ctl authenticator revert 4fG7kq2 --jwt-output laptop-7.jwt',
        'ctl authenticator revert 4fG7kq2 --expires-in 1d --yes',
      ],
    }).addOption(yesOption()),
  );
  return command.action(async (id, o) => run({ id, ...o }, deps));
}

/** Asks once the flags are checked and the JWT's file is reserved: a mistake in them is refused before it asks. */
export async function runAuthenticatorRevert(opts: AuthenticatorRevertOptions, deps: Deps): Promise<void> {
  await withNewJwt(opts, deps, 'reverted the authenticator to', async (api, expiresAt) => {
    await confirmOrDecline(deps, {
      yes: opts.yes === true,
      action: `reverting authenticator ${opts.id}`,
      question: `Revert authenticator ${opts.id}? Its credential stops working and the identity's sessions end.`,
    });
    const created = await api.post<{ id: string }>(`${entityPath(authenticator, opts.id)}/re-enroll`, { expiresAt });
    return created.id;
  });
}

export interface AuthenticatorRequestExtendOptions {
  id: string;
  rollKeys?: boolean;
}

export function buildAuthenticatorRequestExtend(deps: Deps, run = runAuthenticatorRequestExtend): CommandUnknownOpts {
  const id = authenticatorId('the certificate authenticator');
  const command = withMeta(new Command('request-extend').addArgument(id), {
    description:
      'Ask the holder of a certificate to extend it early: its API sessions say so (isCertExtendRequested) until it ' +
      'extends and verifies a new certificate. With --roll-keys the new certificate should have a new key pair. ' +
      'Clients that cannot extend ignore the request. Only certificate authenticators take it.',
    examples: ['ctl authenticator request-extend 4fG7kq2', 'ctl authenticator request-extend 4fG7kq2 --roll-keys'],
  }).addOption(new Option('--roll-keys', 'ask for a new key pair too'));
  return command.action(async (id, o) => run({ id, ...o }, deps));
}

export async function runAuthenticatorRequestExtend(
  opts: AuthenticatorRequestExtendOptions,
  deps: Deps,
): Promise<void> {
  const api = await deps.api();
  await api.post(`${entityPath(authenticator, opts.id)}/request-extend`, { rollKeys: opts.rollKeys === true });
  deps.io.info(
    `asked the holder of authenticator ${opts.id} to extend its certificate${opts.rollKeys ? ' with a new key' : ''}`,
  );
}

export const verbs: NounModule['verbs'] = {
  revert: (deps) => buildAuthenticatorRevert(deps),
  'request-extend': (deps) => buildAuthenticatorRequestExtend(deps),
};
