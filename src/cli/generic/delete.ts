import { Command, Option } from '@commander-js/extra-typings';
import { everyPage } from './pages.js';
import type { CommandUnknownOpts, OptionValues } from '@commander-js/extra-typings';
import type { ResourceDef } from '../../resources/types.js';
import type { Deps } from '../deps.js';
import { DeclinedError, UsageError } from '../../console/errors.js';
import type { ApiClient } from '../../client/types.js';
import { MAX_OFFSET } from '../../protocol/paging.js';
import { addDryRun, dryRunDeps } from './dry-run.js';
import type { IO } from '../../console/io.js';
import { Failures } from './failures.js';
import { printDeleted } from './written.js';
import { addYes } from './flags.js';
import { withMeta } from './meta.js';
import { entityPath, isNotFound, lookup } from './resolve.js';
import type { Entity } from './resolve.js';
import { nameArguments, noun, plural, refArgument, requireOperation } from './words.js';

export interface DeleteOptions {
  def: ResourceDef;
  refs: string[];
  yes: boolean;
  ignoreMissing: boolean;
  /** Delete what this ZitiQL filter matches instead of named entities. */
  where?: string;
  /** Print the DELETEs instead of sending them (no confirmation needed: nothing happens). */
  dryRun?: boolean;
  /**
   * Where the ids of the entities gone are collected, for a caller that deletes in several runs and prints them
   * once (policy delete, per kind); without it, the run prints them itself (-o json|yaml).
   */
  gone?: string[];
}

/** --yes and --ignore-missing, which every delete takes. */
export function addDeleteFlags<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
) {
  const ignoreMissing = new Option('--ignore-missing', 'succeed when a name or id matches nothing (idempotent delete)');
  return addYes(command).addOption(ignoreMissing);
}

/** How many matches of a filter are named before the confirmation; the rest are counted. */
export const NAMES_SHOWN = 20;

export function buildDelete(deps: Deps, def: ResourceDef, run = runDelete): CommandUnknownOpts {
  requireOperation(def, 'delete', 'delete');
  const n = noun(def);
  const arg = refArgument(def);
  const examples =
    arg === 'id'
      ? [`ctl ${n} delete 3x9fQz1Ab 7Hk2LmP0q --yes`]
      : [`ctl ${n} delete laptop-7 laptop-8`, `ctl ${n} rm old-host --yes --ignore-missing`];
  examples.push(
    `ctl ${n} delete --where ` +
      `'${'name' in def.fields ? 'name contains "test-"' : 'createdAt < datetime(2025-01-01T00:00:00Z)'}' --yes`,
  );
  examples.push(`ctl ${n} delete --where 'tags.owner = "ci"' --dry-run`);
  const base = withMeta(
    new Command('delete').alias('rm').addArgument(nameArguments(def, `the ${plural(def)} to delete`).argOptional()),
    {
      description: `Delete ${plural(def)} by name or id, or all that match --where, after confirming the exact set`,
      examples,
    },
  );
  const filter = `delete every ${def.label} this ZitiQL filter matches (see: ctl help filters)`;
  const where = new Option('--where <filter>', filter);
  const command = addDryRun(addDeleteFlags(base).addOption(where));
  return command.action(async (refs, o) => {
    const opts: DeleteOptions = {
      def,
      refs: [...new Set(refs)],
      yes: Boolean(o.yes),
      ignoreMissing: Boolean(o.ignoreMissing),
    };
    if (o.where !== undefined) opts.where = o.where;
    if (o.dryRun) opts.dryRun = true;
    validateDelete(opts, deps.io);
    await run(opts, opts.dryRun ? dryRunDeps(deps) : deps);
  });
}

/**
 * Names or a filter, never both nor neither; and a destructive command that cannot ask refuses rather than deleting
 * unconfirmed (a dry run deletes nothing, so it needs no confirmation).
 */
export function validateDelete(opts: DeleteOptions, io: IO): void {
  if (opts.where !== undefined && opts.refs.length > 0) throw new UsageError('give names or ids, or --where, not both');
  if (opts.where === undefined && opts.refs.length === 0)
    throw new UsageError(`nothing to delete: give ${refArgument(opts.def)}s or --where FILTER`);
  if (opts.where !== undefined && opts.where.trim() === '')
    throw new UsageError('--where needs a filter; to delete everything, say so: --where true');
  if (opts.where !== undefined && pages(opts.where)) {
    throw new UsageError('--where deletes every match: leave skip and limit out of the filter', [
      'to see what matches first: --dry-run',
    ]);
  }
  if (!opts.yes && !opts.dryRun && !io.canPrompt()) {
    throw new DeclinedError('not deleting without confirmation', ['pass --yes (-y) to delete without a prompt']);
  }
}

/**
 * Resolves every name, asks once for the exact set found, deletes only that set, and keeps going past failures:
 * one bad name does not hide the others. The exit code is the most severe failure.
 */
export async function runDelete(opts: DeleteOptions, deps: Deps): Promise<void> {
  if (opts.where !== undefined) return runDeleteWhere({ ...opts, where: opts.where }, deps);
  const { def } = opts;
  const { io } = deps;
  const api = await deps.api();
  const failures = new Failures(io, opts.refs.length > 1);
  const targets = new Map<string, Entity>();
  for (const ref of opts.refs) {
    try {
      const entity = await lookup(api, def, ref);
      targets.set(entity.id, entity);
    } catch (err) {
      if (opts.ignoreMissing && isNotFound(err)) io.info(`${def.label} "${ref}" not found, skipped`);
      else failures.add(ref, err);
    }
  }
  if (targets.size > 0 && !opts.yes && !opts.dryRun) await confirm([...targets.values()], opts.def, deps);
  const gone = opts.gone ?? [];
  for (const entity of targets.values()) {
    try {
      await api.delete(entityPath(def, entity.id), { api: def.api });
      if (!opts.dryRun) io.info(`deleted ${def.label} ${label(entity)}`);
      gone.push(entity.id);
    } catch (err) {
      if (opts.ignoreMissing && isNotFound(err)) {
        io.info(`${def.label} ${label(entity)} was already gone`);
        gone.push(entity.id);
      } else failures.add(label(entity), err);
    }
  }
  await reportGone(opts, deps, gone);
  failures.finish(`${failures.count} of ${opts.refs.length} ${plural(def)} not deleted`);
}

/** The ids gone, printed (-o json|yaml) before any failure is reported, unless the caller collects them. */
async function reportGone(opts: DeleteOptions, deps: Deps, gone: readonly string[]): Promise<void> {
  if (opts.gone === undefined && !opts.dryRun) await printDeleted(deps, gone);
}

function label(entity: Entity): string {
  return typeof entity.name === 'string' ? `"${entity.name}" (${entity.id})` : entity.id;
}

/** Whether a filter pages (`skip N`, `limit N`) outside its string literals: the pages would be read past anyway. */
function pages(filter: string): boolean {
  return /\b(skip|limit)\s+(\d+|none)\b/i.test(filter.replace(/"(?:[^"\\]|\\.)*"/g, '""'));
}

async function confirm(entities: Entity[], def: ResourceDef, deps: Deps, total = entities.length): Promise<void> {
  const what = total === 1 ? def.label : plural(def);
  deps.io.info(`about to delete ${total} ${what}:`);
  for (const entity of entities) deps.io.info(`  ${label(entity)}`);
  if (total > entities.length) deps.io.info(`  ... and ${total - entities.length} more`);
  const prompter = await deps.prompter();
  const question = total === 1 ? `Delete this ${what}?` : `Delete these ${total} ${what}?`;
  if (!(await prompter.confirm(question, { default: false }))) {
    throw new DeclinedError('nothing deleted');
  }
}

/**
 * `delete --where FILTER`: every page of matches is read first (deleting while paging would skip rows), the count
 * and the first names are shown and confirmed, then each is deleted, going on past failures. Matching nothing is
 * no error: the state asked for holds. The exit code is the most severe failure.
 */
export async function runDeleteWhere(opts: DeleteOptions & { where: string }, deps: Deps): Promise<void> {
  const { def } = opts;
  const { io } = deps;
  const api = await deps.api();
  const matches = await io.spin(`finding ${plural(def)}`, () => everyMatch(api, def, opts.where));
  const gone = opts.gone ?? [];
  if (matches.length === 0) {
    io.info(`no ${plural(def)} match ${opts.where}: nothing to delete`);
    await reportGone(opts, deps, gone);
    return;
  }
  if (!opts.yes && !opts.dryRun) await confirm(matches.slice(0, NAMES_SHOWN), def, deps, matches.length);
  const failures = new Failures(io, true);
  for (const entity of matches) {
    try {
      await api.delete(entityPath(def, entity.id), { api: def.api });
      gone.push(entity.id);
    } catch (err) {
      if (isNotFound(err))
        gone.push(entity.id); // gone meanwhile: the filter's set is deleted all the same
      else failures.add(label(entity), err);
    }
  }
  const deleted = matches.length - failures.count;
  if (!opts.dryRun)
    io.info(`deleted ${deleted} of ${matches.length} ${matches.length === 1 ? def.label : plural(def)}`);
  await reportGone(opts, deps, gone);
  failures.finish(`${failures.count} of ${matches.length} ${plural(def)} not deleted`);
}

async function everyMatch(api: ApiClient, def: ResourceDef, filter: string): Promise<Entity[]> {
  const { rows } = await everyPage<Entity>(api, entityPath(def), { filter }, { api: def.api }, () => {
    throw new UsageError(`more than ${MAX_OFFSET} ${plural(def)} match: narrow the filter`);
  });
  // A row can move between pages while they are read: each entity once.
  return [...new Map(rows.map((e) => [e.id, e])).values()];
}
