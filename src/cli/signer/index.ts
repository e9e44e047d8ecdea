// The signer noun: the generic create and update, with `--cert-pem` taking the certificate as @FILE or - (stdin),
// as nobody types a PEM on a command line, and `--scopes` a comma-separated list. Registered in
// src/cli/tree.ts with nounCommands.
import { InvalidArgumentError } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { readFileSync } from 'node:fs';
import { buildCreate } from '../generic/create.js';
import { FromStdin } from '../generic/stdin-flags.js';
import { buildUpdate } from '../generic/update.js';
import type { NounModule } from '../nouns/verbs.js';
import { buildSignerTest } from './test-token.js';
import { UsageError } from '../../console/errors.js';
import { decodeUtf8 } from '../../console/utf8.js';
import { fileProblem } from '../../console/file-problem.js';
import { keepsLast } from '../completion/option-facts.js';

/**
 * `@FILE` or `-` read as text; anything else is the PEM itself; "" stays (update: clears the certificate). One value:
 * the last given wins.
 */
export const pemArgument = keepsLast((value: string): string => {
  // `-`: read from stdin when the command runs (readStdinFlags), typed as what the action then sees.
  if (value === '-') return new FromStdin() as unknown as string;
  if (!value.startsWith('@')) return value;
  try {
    return decodeUtf8(readFileSync(value.slice(1)), value.slice(1), InvalidArgumentError);
  } catch (err) {
    if (err instanceof InvalidArgumentError) throw err;
    throw new InvalidArgumentError(`cannot read ${value.slice(1)}: ${fileProblem(err)}.`);
  }
});

/** `--scopes openid,email --scopes profile`: one list, in order, without repeats; "" gives the empty list. */
export function scopeList(value: string, previous: string[] = []): string[] {
  return [
    ...new Set([
      ...previous,
      ...value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ]),
  ];
}

function option(command: CommandUnknownOpts, long: string) {
  const found = command.options.find((o) => o.long === long);
  if (!found) throw new Error(`'signer ${command.name()}' has no ${long}`);
  return found;
}

function withPemFile(command: CommandUnknownOpts, examples: string[]): CommandUnknownOpts {
  const pem = option(command, '--cert-pem');
  pem.argParser(pemArgument);
  pem.description = `${pem.description} (@FILE to read it from a file, - from stdin)`;
  const scopes = option(command, '--scopes');
  scopes.argParser(scopeList);
  scopes.description = `${scopes.description}: comma-separated or repeated; replaces the list ("" clears it)`;
  command.addHelpText('after', `\nWith a certificate or a key set:\n${examples.map((e) => `  $ ${e}`).join('\n')}`);
  return command;
}

/**
 * A new signer checks tokens with one source of keys. Checked before anything is asked or sent: the controller's
 * refusal comes only after a terminal has asked for what else is missing, and `--dry-run` would print a request
 * it refuses.
 */
function requireOneKeySource(command: CommandUnknownOpts): CommandUnknownOpts {
  return command.hook('preAction', (_root, action) => {
    const { certPem, jwksEndpoint } = action.opts();
    if (Boolean(certPem) !== Boolean(jwksEndpoint)) return;
    throw new UsageError(`${certPem ? 'give only one' : 'give one'} of --cert-pem (with --kid) or --jwks-endpoint`, [
      'the signer checks tokens with that certificate, or with the keys the URL serves',
    ]);
  });
}

export const verbs: NounModule['verbs'] = {
  create: (deps, def) =>
    withPemFile(requireOneKeySource(buildCreate(deps, def)), [
      'ctl signer create corp-idp --enabled --issuer https://idp.corp.example ' +
        '--audience ctl --cert-pem @idp.pem --kid key-1 --scopes openid,email',
      'ctl signer create keycloak --enabled --issuer https://kc.example/realms/ops --audience ' +
        'ziti --jwks-endpoint https://kc.example/realms/ops/protocol/openid-connect/certs',
    ]),
  update: (deps, def) =>
    withPemFile(buildUpdate(deps, def), [
      'ctl signer update corp-idp --cert-pem @idp-2027.pem --kid key-2',
      'ctl signer update corp-idp --no-enabled',
    ]),
  test: (deps) => buildSignerTest(deps),
};
