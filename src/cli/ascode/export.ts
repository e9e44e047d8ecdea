import { writeFile } from 'node:fs/promises';
import { Command } from '@commander-js/extra-typings';
import { FailureError, UsageError } from '../../console/errors.js';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { serialise } from '../output/render.js';
import { KINDS, kindNamed } from './kinds.js';
import { readNetwork } from './network.js';

export interface ExportOptions {
  kinds: string[];
  outputFile?: string;
}

export function buildExport(deps: Deps, run = runExport) {
  return withMeta(new Command('export'), {
    description:
      'Write the network as a file to keep in git: every entity of the named kinds (all kinds by default) by name, ' +
      'references and roles by name, no ids and no secrets, in a stable order (YAML, or JSON with -o json)',
    examples: ['ctl export > net.yaml', 'ctl export identity service service-policy -o json --output-file net.json'],
  })
    .argument('[kinds...]', `kinds to export (default all): ${KINDS.map((k) => k.def.name).join(', ')}`)
    .option('--output-file <path>', 'write the file there instead of to stdout')
    .action(async (kinds, opts) => {
      const unknown = kinds.find((word) => !kindNamed(word));
      if (unknown !== undefined) {
        throw new UsageError(`unknown kind '${unknown}'`, [`kinds: ${KINDS.map((k) => k.def.name).join(', ')}`]);
      }
      await run({ kinds, outputFile: opts.outputFile }, deps);
    });
}

export async function runExport(opts: ExportOptions, deps: Deps): Promise<void> {
  const chosen = opts.kinds.length === 0 ? KINDS : KINDS.filter((k) => opts.kinds.some((w) => kindNamed(w) === k));
  const { document } = await readNetwork(await deps.api(), chosen);
  const text = await serialise(document, deps.globals().output === 'json' ? 'json' : 'yaml');
  if (opts.outputFile === undefined) {
    deps.io.out(text);
    return;
  }
  await writeFile(opts.outputFile, `${text}\n`).catch((err: unknown) => {
    throw new FailureError(`cannot write ${opts.outputFile}: ${(err as Error).message}`);
  });
}
