import { UsageError } from '../../console/errors.js';
import type { IO } from '../../console/io.js';
import type { Deps } from '../deps.js';
import { isHuman } from '../output/formats.js';
import type { OutputFormat } from '../output/formats.js';
import { serialise } from '../output/render.js';
import { readDeclaration } from './input.js';
import { KINDS } from './kinds.js';
import { readNetwork } from './network.js';
import { planChanges } from './plan.js';
import type { Plan } from './plan.js';
import { planData, planLines } from './present.js';

export const FILE_HELP = 'a network file, or a directory of *.yaml, *.yml and *.json files (repeatable)';

/** The files given with -f, repeatable: `-f a.yaml -f dir/`. */
export function collectFiles(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function requireFiles(files: readonly string[] | undefined): string[] {
  if (!files || files.length === 0) throw new UsageError('give the network file with -f FILE (or a directory)');
  return [...files];
}

/**
 * The shared first half of diff and apply: the whole declaration read and checked, the controller's network read
 * for the kinds it declares, and the plan made from the two. Nothing is written.
 */
export async function prepare(files: readonly string[], deps: Deps, prune = false) {
  const declaration = await readDeclaration(files);
  for (const note of declaration.notes) deps.io.info(note);
  const network = await readNetwork(await deps.api(), KINDS.filter((k) => declaration.kinds.has(k)));
  return { plan: planChanges(declaration, network, prune), network };
}

/** The plan on stderr for a person, or as data on stdout for a program. */
export async function showPlan(io: IO, plan: Plan, format: OutputFormat): Promise<void> {
  if (isHuman(format)) for (const line of planLines(plan)) io.info(line);
  else io.out(await serialise(planData(plan), format === 'json' ? 'json' : 'yaml'));
}
