import { Command } from '@commander-js/extra-typings';
import { CliError, DeclinedError, RejectedError } from '../../console/errors.js';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { describeFailure, formatFailure, mostSevere } from '../output/failure.js';
import { asFormat, isHuman } from '../output/formats.js';
import { serialise } from '../output/render.js';
import { FILE_HELP, REPLACE_HELP, collectFiles, prepare, requireFiles, showPlan } from './prepare.js';
import type { Change, Plan } from './plan.js';
import { counts, deletedNotCreated, outcomeData, planData } from './present.js';
import { reserveJwtFiles, writeJwtFiles } from './jwt-dir.js';
import { applyPlan } from './write.js';
import type { Outcome } from './write.js';

export interface ApplyOptions {
  files: string[];
  dryRun: boolean;
  prune: boolean;
  replace: boolean;
  yes: boolean;
  jwtDir?: string;
  force: boolean;
}

export function buildApply(deps: Deps, run = runApply) {
  return withMeta(new Command('apply'), {
    description:
      'Make the controller match the network file: create what is missing and update what differs, by name, in ' +
      'dependency order. Prints the plan, then the outcome; a second run of the same file changes nothing.',
    examples: [
      'ctl apply -f net.yaml',
      'ctl apply -f net/ --dry-run',
      'ctl apply -f net.yaml --prune --yes',
      'ctl apply -f net.yaml --replace --yes',
    ],
  })
    .option('-f, --file <path>', FILE_HELP, collectFiles)
    .option('--dry-run', 'print the plan only; send nothing that writes')
    .option('--prune', "also delete entities of the file's kinds that it does not name (never built-in ones)")
    .option('--replace', REPLACE_HELP)
    .option('-y, --yes', 'delete what --prune and --replace list without asking')
    .option('--jwt-dir <dir>', 'write the enrollment JWT of each new identity and edge router to DIR/NAME.jwt (0600)')
    .option('--force', 'overwrite existing --jwt-dir files')
    .allowExcessArguments()
    .action(async (opts, cmd) => {
      const files = requireFiles(opts.file, cmd.args);
      const flags = {
        dryRun: Boolean(opts.dryRun),
        prune: Boolean(opts.prune),
        replace: Boolean(opts.replace),
        yes: Boolean(opts.yes),
      };
      await run({ files, ...flags, jwtDir: opts.jwtDir, force: Boolean(opts.force) }, deps);
    });
}

export async function runApply(opts: ApplyOptions, deps: Deps): Promise<void> {
  const format = asFormat(deps.globals().output);
  const { plan, network } = await prepare(opts.files, deps, opts);
  const conflicts = plan.changes.filter((c) => c.action === 'conflict');
  if (opts.dryRun || conflicts.length > 0 || plan.changes.length === 0) {
    await showPlan(deps.io, plan, format);
    if (conflicts.length > 0 && !opts.dryRun) {
      const message = `${conflicts.length} conflict${conflicts.length === 1 ? '' : 's'}: nothing was written`;
      throw new RejectedError(message, [conflictHint(opts.replace)]);
    }
    return;
  }
  if (isHuman(format)) await showPlan(deps.io, plan, format);
  await confirmDeletes(plan, opts, deps);
  const api = await deps.api();
  const jwtFiles = opts.jwtDir === undefined ? new Map() : await reserveJwtFiles(plan, opts.jwtDir, opts.force);
  const outcome = await applyPlan(api, plan, network);
  for (const p of await writeJwtFiles(api, jwtFiles, outcome)) deps.io.info(`wrote an enrollment JWT to ${p}`);
  const why = (error: unknown) =>
    formatFailure(describeFailure(error, false))
      .join(' ')
      .replace(/^error: /, '');
  if (isHuman(format)) for (const line of outcomeLines(outcome, why)) deps.io.info(line);
  else {
    const data = { ...planData(plan), outcome: outcomeData(outcome, why) };
    deps.io.out(await serialise(data, format === 'json' ? 'json' : 'yaml'));
  }
  if (outcome.failed.length > 0) {
    const code = mostSevere(outcome.failed.map(({ error }) => describeFailure(error, false).exitCode));
    const message = `apply incomplete: ${outcome.failed.length} failed, ${outcome.skipped.length} not attempted`;
    throw new CliError(message, code);
  }
}

function conflictHint(replacing: boolean): string {
  if (!replacing) {
    return (
      'a conflicting field cannot be changed by an update: change the file, or apply with --replace to delete ' +
      'the entity and create it again'
    );
  }
  return (
    'what holds an entity to replace by a reference that refuses its delete is named in the plan: change it ' +
    'not to name the entity, or delete it (the file creates again what it declares), then apply again'
  );
}

function outcomeLines(outcome: Outcome, why: (error: unknown) => string): string[] {
  const failed = ({ change: c, error }: Outcome['failed'][number]) =>
    `failed: ${c.action} ${c.kind.def.label} "${c.name}": ${why(error)}`;
  const lines = [...outcome.failed.map(failed), ...unfinishedReplaces(outcome)];
  const done = counts(outcome.done);
  const replaced = done.replace + done.repoint === 0 ? '' : `, ${done.replace} replaced, ${done.repoint} re-pointed`;
  lines.push(`Applied: ${done.create} created, ${done.update} updated, ${done.delete} deleted${replaced}.`);
  if (outcome.failed.length + outcome.skipped.length > 0) {
    const notDone = `${outcome.failed.length} failed, ${outcome.skipped.length} not attempted`;
    lines.push(`Not done: ${notDone}; apply the file again once the cause is fixed.`);
  }
  return lines;
}

/**
 * What a run that stopped half way leaves for a person: replaces whose old entity was put back, replaced entities
 * deleted and not created again (the next run creates them), and repoints not made, which no later run can find.
 */
function unfinishedReplaces(outcome: Outcome): string[] {
  const notDone = [...outcome.skipped, ...outcome.failed.map((f) => f.change)];
  const what = (c: Change) => `${c.kind.def.label} "${c.name}"`;
  const lines = outcome.restored.map((c) => `restored: ${what(c)} as it was, with a new id, and what held it`);
  const gone = deletedNotCreated(outcome);
  lines.push(...gone.map((c) => `deleted, not created again: ${what(c)} (apply the file again)`));
  for (const c of notDone.filter((change) => change.action === 'repoint')) {
    const label = c.replaced?.[0].kind.def.label;
    const named = (names: string[]) => names.map((n) => `${label} "${n}"`).join(', ');
    const fields = Object.entries(c.repoint ?? {}).map(([k, names]) => `${k} must name ${named(names)} again`);
    lines.push(`not re-pointed: ${what(c)}: ${fields.join('; ')} (a later run cannot find this: update it by hand)`);
  }
  return lines;
}

/**
 * Deletes, and the deletes of replaces, are listed in the plan first; then --yes, or a yes at the prompt; a script
 * without --yes is refused.
 */
async function confirmDeletes(plan: Plan, opts: ApplyOptions, deps: Deps): Promise<void> {
  const replaces = plan.changes.filter((c) => c.action === 'replace').length;
  const n = plan.changes.filter((c) => c.action === 'delete').length + replaces;
  if (n === 0 || opts.yes) return;
  const what = `${entities(n)}${replaces === 0 ? '' : ` (${replaces} to create again)`}`;
  if (!deps.io.canPrompt()) {
    const message = `not deleting ${what} without confirmation: nothing was written`;
    throw new DeclinedError(message, ['pass --yes (-y) to apply with --prune or --replace without a prompt']);
  }
  const prompter = await deps.prompter();
  if (!(await prompter.confirm(`Apply, deleting ${what}?`, { default: false }))) {
    throw new DeclinedError('nothing was written');
  }
}

function entities(n: number): string {
  return `${n} entit${n === 1 ? 'y' : 'ies'}`;
}
