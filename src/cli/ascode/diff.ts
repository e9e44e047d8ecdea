import { Command } from '@commander-js/extra-typings';
import { ChangesPending } from '../../console/errors.js';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { asFormat } from '../output/formats.js';
import { FILE_HELP, REPLACE_HELP, collectFiles, planText, prepare, requireFiles } from './prepare.js';

export interface DiffOptions {
  files: string[];
  replace: boolean;
}

export function buildDiff(deps: Deps, run = runDiff) {
  return withMeta(new Command('diff'), {
    description:
      'Show what `ctl apply` would change to make the controller match the network file, on stdout: exit 0 ' +
      'when nothing, 2 when something would change (1 or another code on errors). Writes nothing.',
    examples: ['ctl diff -f net.yaml', 'ctl diff -f net/ -o json', 'ctl diff -f net.yaml --replace'],
  })
    .option('-f, --file <path>', FILE_HELP, collectFiles)
    .option('--replace', `plan as \`ctl apply --replace\` would: ${REPLACE_HELP}`)
    .allowExcessArguments()
    .action(async (opts, cmd) =>
      run({ files: requireFiles(opts.file, cmd.args), replace: Boolean(opts.replace) }, deps),
    );
}

export async function runDiff(opts: DiffOptions, deps: Deps): Promise<void> {
  const { plan } = await prepare(opts.files, deps, { replace: opts.replace });
  deps.io.out(await planText(plan, asFormat(deps.globals().output)));
  if (plan.changes.length > 0) throw new ChangesPending();
}
