import { shellQuote } from '../../console/command-hint.js';
import { UsageError } from '../../console/errors.js';
import type { IO } from '../../console/io.js';
import type { Deps } from '../deps.js';
import { isHuman } from '../output/formats.js';
import type { OutputFormat } from '../output/formats.js';
import { serialise } from '../output/render.js';
import { breakCycle } from './forward.js';
import { readDeclaration } from './input.js';
import { KINDS } from './kinds.js';
import { readMissingRows, readNetwork } from './network.js';
import type { Network } from './network.js';
import { nameIdsOf } from './openziti-ids.js';
import { planChanges } from './plan.js';
import type { Change, Plan } from './plan.js';
import { holderKinds, refuseHeldDeletes } from './held.js';
import { planReplacements } from './replace.js';
import { planData, planLines } from './present.js';

export const FILE_HELP = 'a network file, or a directory of *.yaml, *.yml and *.json files (repeatable)';
export const REPLACE_HELP =
  'delete and create again each entity whose file changes a field fixed after create (a conflict without it); ' +
  'what names it by id is re-pointed to the new one';

/** The files given with -f, repeatable: `-f a.yaml -f dir/`. */
export function collectFiles(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** The -f files. One given without -f (`ctl diff net.yaml`, as other tools take it) is shown where it goes. */
export function requireFiles(files: readonly string[] | undefined, bare: readonly string[] = []): string[] {
  if (bare.length > 0) throw new UsageError(`the network file goes after -f: -f ${shellQuote(bare[0]!)}`);
  if (!files || files.length === 0) throw new UsageError('give the network file with -f FILE (or a directory)');
  return [...files];
}

/** How a plan is made: with the deletes of --prune, with the conflicts replaced (--replace). */
export interface PlanOptions {
  prune?: boolean;
  replace?: boolean;
}

/**
 * The shared first half of diff and apply: the whole declaration read and checked, the controller's network read
 * for the kinds it declares, and the plan made from the two. With --replace and a conflict, the network is widened
 * with every kind that can name a conflicting entity (what was read is not read again), to find what must be
 * re-pointed. Where the plan deletes (--prune), the rows of every kind that can hold back a delete are read too,
 * those not read yet, and a delete the controller would refuse is refused here. Nothing is written.
 */
export async function prepare(files: readonly string[], deps: Deps, options: PlanOptions = {}) {
  const declaration = await readDeclaration(files);
  for (const note of declaration.notes) deps.io.info(note);
  const api = await deps.api();
  const declared = KINDS.filter((k) => declaration.kinds.has(k));
  let network = await readNetwork(api, declared);
  nameIdsOf(declaration, network);
  const planFor = (n: Network) => breakCycle(planChanges(declaration, n, options.prune), n);
  let plan = planFor(network);
  const conflicting = new Set(plan.changes.filter((c) => c.action === 'conflict').map((c) => c.kind.def.name));
  if (options.replace && conflicting.size > 0) {
    const holders = holderKinds(conflicting);
    const wider = KINDS.filter((k) => declared.includes(k) || holders.includes(k));
    network = await readNetwork(api, wider, network.rows);
    plan = planReplacements(planFor(network), network);
  }
  const deleted = resourcesOf(plan.changes.filter((c) => c.action === 'delete'));
  if (deleted.size > 0) {
    await readMissingRows(api, network, holderKinds(deleted, { refusingOnly: true }));
    refuseHeldDeletes(plan, network);
  }
  return { plan, network };
}

const resourcesOf = (changes: readonly Change[]) => new Set(changes.map((c) => c.kind.def.name));

/**
 * The plan as apply shows it: on stderr for a person, as the progress of a run (stdout carries apply's data), or
 * as data on stdout for a program.
 */
export async function showPlan(io: IO, plan: Plan, format: OutputFormat): Promise<void> {
  if (isHuman(format)) for (const line of planLines(plan)) io.info(line);
  else io.out(await planText(plan, format));
}

/** The plan as text, diff's result: its lines for a person, or the data for a program. */
export async function planText(plan: Plan, format: OutputFormat): Promise<string> {
  if (isHuman(format)) return planLines(plan).join('\n');
  return serialise(planData(plan), format === 'json' ? 'json' : 'yaml');
}
