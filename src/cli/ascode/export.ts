import { writeFile } from 'node:fs/promises';
import { Command } from '@commander-js/extra-typings';
import type { ApiClient } from '../../client/types.js';
import { FailureError, UsageError } from '../../console/errors.js';
import { resource } from '../../resources/index.js';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { everyPage, stoppedAt } from '../generic/pages.js';
import { entityPath } from '../generic/resolve.js';
import { serialise } from '../output/render.js';
import { byName, fileFields, toFileEntity } from './document.js';
import type { FileEntity } from './document.js';
import { KINDS, kindNamed } from './kinds.js';
import type { Kind } from './kinds.js';

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
  const document = await exportNetwork(await deps.api(), chosen);
  const text = await serialise(document, deps.globals().output === 'json' ? 'json' : 'yaml');
  if (opts.outputFile === undefined) {
    deps.io.out(text);
    return;
  }
  await writeFile(opts.outputFile, `${text}\n`).catch((err: unknown) => {
    throw new FailureError(`cannot write ${opts.outputFile}: ${(err as Error).message}`);
  });
}

/** The network document of `kinds`: each kind's key with its entities by name, in dependency order. */
export async function exportNetwork(api: ApiClient, kinds: readonly Kind[]): Promise<Record<string, FileEntity[]>> {
  const rows = await readAll(api, [...new Set([...kinds.map((k) => k.def.name), ...kinds.flatMap(referenced)])]);
  const names = new Map([...rows].map(([name, list]) => [name, new Map(list.map((r) => [`${r.id}`, `${r.name}`]))]));
  const nameOf = (resourceName: string, id: string) => names.get(resourceName)?.get(id);
  const document: Record<string, FileEntity[]> = {};
  for (const kind of kinds) {
    const own = (rows.get(kind.def.name) ?? []).filter((row) => !kind.isOwnedByController?.(row));
    document[kind.key] = own.map((row) => toFileEntity(kind, row, nameOf)).sort(byName);
  }
  return document;
}

/** The resources a kind's fields name, whose ids the file writes as names. */
function referenced(kind: Kind): string[] {
  return fileFields(kind).flatMap(([, f]) => ('resource' in f.type ? [f.type.resource] : []));
}

/** Every row of each resource, read together. An export that would miss rows fails rather than write a part. */
async function readAll(api: ApiClient, resources: readonly string[]): Promise<Map<string, Record<string, unknown>[]>> {
  const lists = await Promise.all(
    resources.map(async (name) => {
      const def = resource(name);
      const tooMany = (n: number) => {
        throw new FailureError(`cannot export every ${def.label}: ${stoppedAt(n)}`);
      };
      const { rows } = await everyPage<Record<string, unknown>>(api, entityPath(def), {}, { api: def.api }, tooMany);
      return [name, rows] as const;
    }),
  );
  return new Map(lists);
}
