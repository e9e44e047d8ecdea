// `--jwt-output FILE` and `--force`, shared by every verb that hands out an enrollment JWT (routers, enrollments):
// one wording in --help, one way of claiming the file.
import { Option } from '@commander-js/extra-typings';
import type { Command, OptionValues } from '@commander-js/extra-typings';
import { reserveSecretFile, type SecretFile } from './secret-file.js';

/** Where an enrollment JWT goes: a file (mode 0600), or `-` (or nothing) for stdout. */
export interface JwtOutput {
  jwtOutput?: string;
  force?: boolean;
}

/** Adds --jwt-output and --force; `what` names the JWT in the help ("the enrollment JWT", "the new JWT"). */
export function jwtOutputOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
  what = 'the enrollment JWT',
) {
  return command
    .addOption(new Option('--jwt-output <file>', `write ${what} to FILE (mode 0600), or to stdout with -`))
    .addOption(new Option('--force', 'overwrite an existing --jwt-output file'));
}

/** Claims the --jwt-output file before any request, so nothing is made whose JWT then cannot be saved. */
export async function reserveJwtOutput(opts: JwtOutput): Promise<SecretFile | undefined> {
  if (opts.jwtOutput === undefined || opts.jwtOutput === '-') return undefined;
  return reserveSecretFile(opts.jwtOutput, { force: opts.force, flag: '--jwt-output' });
}
