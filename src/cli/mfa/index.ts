// `ctl mfa ...`: TOTP multi-factor authentication of the logged-in identity (enroll with a QR code, verify, status,
// disable, recovery codes). Registered in src/cli/tree.ts; loaded only when `ctl mfa` runs.
import { Command, Option } from '@commander-js/extra-typings';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import {
  runMfaDisable,
  runMfaEnable,
  runMfaRecoveryCodes,
  runMfaRegenerate,
  runMfaStatus,
  runMfaVerify,
} from './commands.js';

const CODE_HELP =
  'a current code from the authenticator app (one-shot, so safe ' +
  'on a command line); asked for in a terminal when left out';

export function buildMfa(deps: Deps) {
  return withMeta(new Command('mfa'), {
    description:
      'Set up and manage TOTP multi-factor authentication for the identity you are logged in as: an authenticator ' +
      'app (Google Authenticator, Aegis, 1Password, ...) then gives the code `ctl login` asks for',
    examples: ['ctl mfa enable', 'ctl mfa status', 'ctl mfa regenerate', 'ctl mfa disable --code 123456'],
  })
    .addCommand(
      withMeta(new Command('enable'), {
        description:
          'Enroll in MFA: shows a QR code for the authenticator app (and the otpauth:// URL under it, to paste ' +
          'instead), asks for a code to verify it, then shows the recovery codes (`ctl mfa recovery-codes` shows ' +
          'them again). Needs a terminal, unless --secret-out writes the secret to a file for automation (complete ' +
          'with --code or `ctl mfa verify CODE`). An enrollment started earlier and not verified is continued.',
        examples: [
          'ctl mfa enable',
          'ctl mfa enable --secret-out ./totp.secret && ctl mfa verify "$(oathtool --totp -b "$(cat ./totp.secret)")"',
          'ctl mfa enable --code 123456',
        ],
      })
        .addOption(
          new Option(
            '--secret-out <file>',
            'write the TOTP secret (base32) to FILE, mode 0600, instead of showing a QR code',
          ),
        )
        .addOption(new Option('--force', 'with --secret-out: overwrite FILE if it exists'))
        .addOption(new Option('--code <code>', 'verify the enrollment with this code instead of asking for one'))
        .action(async (o) => runMfaEnable(o, deps)),
    )
    .addCommand(
      withMeta(new Command('verify'), {
        description:
          'Complete an MFA enrollment started with `ctl mfa enable ' +
          '--secret-out FILE`, with a code; shows the recovery codes',
        examples: ['ctl mfa verify 123456', 'ctl mfa verify "$(oathtool --totp -b "$(cat ./totp.secret)")" -o json'],
      })
        .argument('<code>', 'a current code computed from the secret')
        .action(async (code) => runMfaVerify({ code }, deps)),
    )
    .addCommand(
      withMeta(new Command('status'), {
        description: 'Show whether MFA is enabled for the identity you are logged in as (exit 0 in every case)',
        examples: ['ctl mfa status', 'ctl mfa status -o json'],
      }).action(async () => runMfaStatus(deps)),
    )
    .addCommand(
      withMeta(new Command('disable'), {
        description:
          'Turn MFA off: needs a current code (or a recovery code) once enrollment is complete; an unverified ' +
          'enrollment goes without one. Lost the authenticator and the ' +
          'recovery codes? An admin can run `ctl identity mfa-reset NAME`.',
        examples: ['ctl mfa disable', 'ctl mfa disable --code 123456'],
      })
        .addOption(new Option('--code <code>', CODE_HELP))
        .action(async (o) => runMfaDisable(o, deps)),
    )
    .addCommand(
      withMeta(new Command('recovery-codes'), {
        description:
          'Show the unused recovery codes: needs a current code from the authenticator app once enrollment is ' +
          'complete (a recovery code is not accepted here); `ctl mfa regenerate` replaces them',
        examples: ['ctl mfa recovery-codes --code 123456'],
      })
        .addOption(new Option('--code <code>', CODE_HELP))
        .action(async (o) => runMfaRecoveryCodes(o, deps)),
    )
    .addCommand(
      withMeta(new Command('regenerate'), {
        description:
          'Replace every recovery code by new ones and show them (needs a current code from the authenticator app)',
        examples: ['ctl mfa regenerate', 'ctl mfa regenerate --code 123456 -o json'],
      })
        .addOption(new Option('--code <code>', CODE_HELP))
        .action(async (o) => runMfaRegenerate(o, deps)),
    );
}
