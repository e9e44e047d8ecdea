// The signer noun: the generic create and update, with `--cert-pem` taking the certificate as @FILE or - (stdin),
// as nobody types a PEM on a command line. Registered in src/cli/tree.ts with nounCommands.
import { InvalidArgumentError } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { readFileSync } from 'node:fs';
import { buildCreate } from '../generic/create.js';
import { buildUpdate } from '../generic/update.js';
import type { NounModule } from '../nouns/verbs.js';

/** `@FILE` or `-` read as text; anything else is the PEM itself; "" stays (update: clears the certificate). */
export function pemArgument(value: string): string {
  if (value !== '-' && !value.startsWith('@')) return value;
  const source = value === '-' ? 'stdin' : value.slice(1);
  try {
    return readFileSync(value === '-' ? 0 : value.slice(1), 'utf8');
  } catch (err) {
    throw new InvalidArgumentError(`cannot read ${source}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`);
  }
}

function withPemFile(command: CommandUnknownOpts, examples: string[]): CommandUnknownOpts {
  const option = command.options.find((o) => o.long === '--cert-pem');
  if (!option) throw new Error(`'signer ${command.name()}' has no --cert-pem`);
  option.argParser(pemArgument);
  option.description = `${option.description} (@FILE to read it from a file, - from stdin)`;
  command.addHelpText('after', `\nWith a certificate or a key set:\n${examples.map((e) => `  $ ${e}`).join('\n')}`);
  return command;
}

export const verbs: NounModule['verbs'] = {
  create: (deps, def) =>
    withPemFile(buildCreate(deps, def), [
      'ctl signer create corp-idp --enabled --issuer https://idp.corp.example --audience ctl --cert-pem @idp.pem --kid key-1',
      'ctl signer create keycloak --enabled --issuer https://kc.example/realms/ops --audience ziti --jwks-endpoint https://kc.example/realms/ops/protocol/openid-connect/certs',
    ]),
  update: (deps, def) =>
    withPemFile(buildUpdate(deps, def), [
      'ctl signer update corp-idp --cert-pem @idp-2027.pem --kid key-2',
      'ctl signer update corp-idp --no-enabled',
    ]),
};
