import { Command, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ResourceDef } from '../../resources/types.js';
import type { Deps } from '../deps.js';
import { DeclinedError } from '../../console/errors.js';
import type { IO } from '../../console/io.js';
import { Failures } from './failures.js';
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
}

export function buildDelete(deps: Deps, def: ResourceDef, run = runDelete): CommandUnknownOpts {
  requireOperation(def, 'delete', 'delete');
  const n = noun(def);
  const arg = refArgument(def);
  const command = withMeta(new Command('delete').alias('rm').addArgument(nameArguments(def, `the ${plural(def)} to delete`)), {
    description: `Delete ${plural(def)}, after confirming the exact set`,
    examples: arg === 'id' ? [`ctl ${n} delete 3x9fQz1Ab 7Hk2LmP0q --yes`] : [`ctl ${n} delete laptop-7 laptop-8`, `ctl ${n} rm old-host --yes --ignore-missing`],
  });
  addYes(command);
  command.addOption(new Option('--ignore-missing', 'succeed when a name or id matches nothing (idempotent delete)'));
  return command.action(async (refs, _opts, cmd) => {
    const o = cmd.opts() as { yes?: boolean; ignoreMissing?: boolean };
    const opts: DeleteOptions = { def, refs: [...new Set(refs)], yes: Boolean(o.yes), ignoreMissing: Boolean(o.ignoreMissing) };
    validateDelete(opts, deps.io);
    await run(opts, deps);
  });
}

/** A destructive command that cannot ask refuses rather than deleting unconfirmed. */
export function validateDelete(opts: DeleteOptions, io: IO): void {
  if (!opts.yes && !io.canPrompt()) {
    throw new DeclinedError('not deleting without confirmation', ['pass --yes (-y) to delete without a prompt']);
  }
}

/**
 * Resolves every name, asks once for the exact set found, deletes only that set, and keeps going past failures:
 * one bad name does not hide the others. The exit code is the most severe failure.
 */
export async function runDelete(opts: DeleteOptions, deps: Deps): Promise<void> {
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
  if (targets.size > 0 && !opts.yes) await confirm([...targets.values()], opts.def, deps);
  for (const entity of targets.values()) {
    try {
      await api.delete(entityPath(def, entity.id), { api: def.api });
      io.info(`deleted ${def.label} ${label(entity)}`);
    } catch (err) {
      if (opts.ignoreMissing && isNotFound(err)) io.info(`${def.label} ${label(entity)} was already gone`);
      else failures.add(label(entity), err);
    }
  }
  failures.finish(`${failures.count} of ${opts.refs.length} ${plural(def)} not deleted`);
}

function label(entity: Entity): string {
  return typeof entity.name === 'string' ? `"${entity.name}" (${entity.id})` : entity.id;
}

async function confirm(entities: Entity[], def: ResourceDef, deps: Deps): Promise<void> {
  const what = entities.length === 1 ? def.label : plural(def);
  deps.io.info(`about to delete ${entities.length} ${what}:`);
  for (const entity of entities) deps.io.info(`  ${label(entity)}`);
  const prompter = await deps.prompter();
  const question = entities.length === 1 ? `Delete this ${what}?` : `Delete these ${entities.length} ${what}?`;
  if (!(await prompter.confirm(question, { default: false }))) {
    throw new DeclinedError('nothing deleted');
  }
}
