import { writeFile } from 'node:fs/promises';
import { Command } from '@commander-js/extra-typings';
import { FailureError, UsageError } from '../../console/errors.js';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { serialise } from '../output/render.js';
import { unknownWordDetails } from '../similar.js';
import { KINDS, kindNamed } from './kinds.js';
import { readNetwork } from './network.js';
import { networkSchema } from './schema.js';
import { fileProblem } from '../../console/file-problem.js';

export interface ExportOptions {
  kinds: string[];
  outputFile?: string;
  /** Write the JSON Schema of the file instead of the network (no controller needed). */
  schema?: boolean;
  /** Where editors find that schema: written as YAML's first line, for the YAML language server. */
  schemaRef?: string;
}

/** The comment that tells editors (through the YAML language server) where the file's schema is. */
export function schemaComment(ref: string): string {
  return `# yaml-language-server: $schema=${ref}`;
}

export function buildExport(deps: Deps, run = runExport) {
  return withMeta(new Command('export'), {
    description:
      'Write the network as a file to keep in git: every entity of the named kinds (all kinds by default) by name, ' +
      'references and roles by name, no ids and no secrets, in a stable order (YAML, or JSON with -o json)',
    examples: [
      'ctl export > net.yaml',
      'ctl export identity service service-policy -o json --output-file net.json',
      'ctl export --schema > network.schema.json',
      'ctl export --schema-ref ./network.schema.json > net.yaml   # editors then complete and check net.yaml',
    ],
  })
    .argument('[kinds...]', `kinds to export (default all): ${KINDS.map((k) => k.def.name).join(', ')}`)
    .option('--output-file <path>', 'write the file there instead of to stdout')
    .option('--schema', 'write the JSON Schema of the file instead (derived from the resource declarations)')
    .option('--schema-ref <path|url>', "start the YAML with the language server's schema line, pointing there")
    .action(async (kinds, opts) => {
      const unknown = kinds.find((word) => !kindNamed(word));
      if (unknown !== undefined) {
        const names = KINDS.map((k) => k.def.name);
        throw new UsageError(`unknown kind '${unknown}'`, unknownWordDetails(unknown, 'kinds', names));
      }
      if (opts.schema && kinds.length > 0) throw new UsageError('--schema takes no kinds: the schema covers them all');
      if (opts.schemaRef !== undefined && (opts.schema || deps.globals().output === 'json')) {
        throw new UsageError('--schema-ref goes with a YAML export: JSON has no comments, and --schema is the schema');
      }
      await run({ kinds, outputFile: opts.outputFile, schema: Boolean(opts.schema), schemaRef: opts.schemaRef }, deps);
    });
}

export async function runExport(opts: ExportOptions, deps: Deps): Promise<void> {
  const text = opts.schema ? JSON.stringify(networkSchema(), null, 2) : await exportText(opts, deps);
  if (opts.outputFile === undefined) {
    deps.io.out(text);
    return;
  }
  await writeFile(opts.outputFile, `${text}\n`).catch((err: unknown) => {
    throw new FailureError(`cannot write ${opts.outputFile}: ${fileProblem(err)}`);
  });
}

async function exportText(opts: ExportOptions, deps: Deps): Promise<string> {
  const chosen = opts.kinds.length === 0 ? KINDS : KINDS.filter((k) => opts.kinds.some((w) => kindNamed(w) === k));
  const { document } = await readNetwork(await deps.api(), chosen);
  const text = await serialise(document, deps.globals().output === 'json' ? 'json' : 'yaml');
  return opts.schemaRef === undefined ? text : `${schemaComment(opts.schemaRef)}\n${text}`;
}
