import { Command, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ResourceDef } from '../../resources/types.js';
import type { Deps } from '../deps.js';
import { UsageError } from '../../console/errors.js';
import { addFieldFlags, attributeList, collectFields, flagName, writableFields } from './fields.js';
import type { FieldInput, TagEdit, TagValue } from './fields.js';
import { typedList } from './flags.js';
import { completeWith } from '../completion/hints.js';
import { withMeta } from './meta.js';
import { entityPath, resolveId, resolveInput } from './resolve.js';
import { addDryRun, dryRunnable } from './dry-run.js';
import { printWritten } from './written.js';
import { nameAfter, nameArgument, noun, requireOperation } from './words.js';

export interface UpdateOptions {
  def: ResourceDef;
  ref: string;
  input: FieldInput;
  addAttributes?: string[];
  removeAttributes?: string[];
}

export function buildUpdate(deps: Deps, def: ResourceDef, run = runUpdate): CommandUnknownOpts {
  requireOperation(def, 'patch', 'update');
  const n = noun(def);
  const examples =
    'name' in def.fields ? [`ctl ${n} update laptop-7 --name laptop-8`] : [`ctl ${n} update 3x9fQz1Ab --tag owner=ops`];
  examples.push(
    `ctl ${n} update ${'name' in def.fields ? 'laptop-7' : '3x9fQz1Ab'} --tag env=prod --remove-tag temp --dry-run`,
  );
  if (def.roleAttributes) examples.push(`ctl ${n} update laptop-7 --add-attributes emea --remove-attributes sales`);
  const command = withMeta(new Command('update').addArgument(nameArgument(def, `the ${def.label} to change`)), {
    description: `Change ${def.label} fields: only the flags given are sent (--dry-run prints the PATCH instead)`,
    examples,
  });
  const flags = addFieldFlags(command, def, 'patch');
  addDryRun(command);
  if (def.roleAttributes) addAttributeEdits(command, def);
  return command.action(async (ref, _opts, cmd) => {
    const opts: UpdateOptions = { def, ref, input: collectFields(cmd, flags), ...attributeEdits(cmd) };
    validateUpdate(opts);
    await dryRunnable(cmd, deps, (d) => run(opts, d));
  });
}

export function validateUpdate(opts: UpdateOptions): void {
  const { body, refs, refLists, roles, tagEdit } = opts.input;
  if (
    Object.keys(body).length > 0 ||
    refs.length > 0 ||
    refLists ||
    roles ||
    tagEdit ||
    opts.addAttributes ||
    opts.removeAttributes
  )
    return;
  const names = writableFields(opts.def, 'patch').map(([field, f]) => `--${flagName(opts.def, field, f.type)}`);
  if (names.includes('--tag')) names.push('--remove-tag');
  if (opts.def.roleAttributes) names.push('--add-attributes', '--remove-attributes');
  throw new UsageError('nothing to update', [`give at least one of ${names.join(', ')}`]);
}

/**
 * PATCHes only what the flags say. Adding or removing attributes reads the current set first and sends the whole
 * new set (the API has no partial edit of a list), and sends nothing when it would not change. With -o json|yaml
 * the entity is printed afterwards, also when nothing needed changing.
 */
/** --add-attributes and --remove-attributes: changes to the current role attributes, where `-a` replaces them. */
export function addAttributeEdits(command: CommandUnknownOpts, def: ResourceDef): void {
  const attributes = { kind: 'attribute', resource: def.name } as const;
  const add = new Option('--add-attributes <list>', 'attributes to add to the current set');
  const remove = new Option('--remove-attributes <list>', 'attributes to remove from the current set');
  for (const option of [add, remove]) {
    command.addOption(completeWith(option.argParser(attributeList).conflicts('attributes'), attributes));
  }
}

/** The attribute edits typed on the command line (the flags exist only where the resource has attributes). */
export function attributeEdits(command: CommandUnknownOpts): Pick<UpdateOptions, 'addAttributes' | 'removeAttributes'> {
  const addAttributes = typedList(command, 'addAttributes');
  return { addAttributes, removeAttributes: typedList(command, 'removeAttributes') };
}

export async function runUpdate(opts: UpdateOptions, deps: Deps): Promise<void> {
  const { def } = opts;
  const api = await deps.api();
  const id = await resolveId(api, def, opts.ref);
  const body: Record<string, unknown> = { ...opts.input.body, ...(await resolveInput(api, opts.input, def)) };
  const edits = def.roleAttributes && (opts.addAttributes || opts.removeAttributes);
  const tagEdit = opts.input.tagEdit;
  if (edits || tagEdit) {
    const current = await api.get<Record<string, unknown>>(entityPath(def, id), { api: def.api });
    if (edits) {
      const field = def.roleAttributes!.field;
      const before = Array.isArray(current[field]) ? (current[field] as string[]) : [];
      const after = mergeAttributes(before, opts.addAttributes ?? [], opts.removeAttributes ?? []);
      if (!sameSet(before, after)) body[field] = after;
    }
    if (tagEdit) {
      const before = isRecord(current.tags) ? (current.tags as Record<string, TagValue>) : {};
      const after = mergeTags(before, tagEdit);
      if (JSON.stringify(before) !== JSON.stringify(after)) body.tags = after;
    }
  }
  if (Object.keys(body).length === 0) {
    deps.io.info(`${def.label} "${opts.ref}" is already up to date`);
  } else {
    await api.patch(entityPath(def, id), body, { api: def.api });
    deps.io.info(`updated ${def.label} "${nameAfter(opts.ref, body)}"`);
  }
  await printWritten(deps, def, id);
}

export function mergeAttributes(
  current: readonly string[],
  add: readonly string[],
  remove: readonly string[],
): string[] {
  const dropped = new Set(remove);
  return [...new Set([...current, ...add])].filter((a) => !dropped.has(a));
}

/** The current tags with `edit` applied: keys set (overwritten where present), keys removed; the rest kept. */
export function mergeTags(current: Readonly<Record<string, TagValue>>, edit: TagEdit): Record<string, TagValue> {
  const out: Record<string, TagValue> = { ...current, ...edit.set };
  for (const key of edit.remove) delete out[key];
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
