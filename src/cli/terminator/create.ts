import { readFile } from 'node:fs/promises';
import { Command, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { UsageError } from '../../console/errors.js';
import { terminator } from '../../resources/terminator.js';
import type { Deps } from '../deps.js';
import { announceCreated, createEntity } from '../generic/create.js';
import { addDryRun, dryRunnable } from '../generic/dry-run.js';
import { addFieldFlags, collectFields, type FieldInput } from '../generic/fields.js';
import { withMeta } from '../generic/meta.js';
import { fileProblem } from '../../console/file-problem.js';

export interface TerminatorCreateOptions {
  input: FieldInput;
  /** A file holding the identity secret's bytes (never the secret itself on the command line). */
  identitySecretFile?: string;
}

export function buildTerminatorCreate(deps: Deps, run = runTerminatorCreate): CommandUnknownOpts {
  const base = withMeta(new Command('create'), {
    description: 'Create a terminator: where circuits of a service leave the network; prints its id',
    examples: [
      'ctl terminator create --service web --router er-eu-1 --binding transport --address tcp:10.0.0.5:443',
      'ctl terminator create --service ssh --router tr-core-1 --binding ' +
        'transport --address tcp:bastion:22 --precedence required --cost 10',
      'ctl terminator create --service db --router er-eu-1 --binding edge ' +
        '--address hosted:db-1 --identity db-1 --identity-secret-file db-1.secret',
    ],
  });
  // The secret is read from a file: a flag's value would sit in shell history and the process list.
  const flags = addFieldFlags(base, terminator, 'create', ['identitySecret']);
  const secretHelp = "a file holding the identity's secret (its bytes are sent base64-encoded)";
  const secretFile = new Option('--identity-secret-file <file>', secretHelp);
  return addDryRun(base.addOption(secretFile)).action(async (o, cmd) => {
    const input = collectFields(cmd, flags);
    const secret = o.identitySecretFile ? { identitySecretFile: o.identitySecretFile } : {};
    await dryRunnable(cmd, deps, (d) => run({ input, ...secret }, d));
  });
}

export async function runTerminatorCreate(opts: TerminatorCreateOptions, deps: Deps): Promise<void> {
  const body: Record<string, unknown> = {};
  if (opts.identitySecretFile !== undefined) {
    const bytes = await readFile(opts.identitySecretFile).catch((err: unknown) => {
      throw new UsageError(`cannot read ${opts.identitySecretFile}: ${fileProblem(err)}`);
    });
    body.identitySecret = bytes.toString('base64');
  }
  const id = await createEntity(await deps.api(), terminator, body, opts.input);
  await announceCreated(deps, terminator, undefined, id);
}
