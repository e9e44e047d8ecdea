import { Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ApiClient } from '../../client/types.js';
import type { ResourceDef } from '../../resources/types.js';
import type { Deps } from '../deps.js';
import { UsageError } from '../../console/errors.js';
import type { IO } from '../../console/io.js';
import { addFieldFlags, collectFields, missingRequired } from './fields.js';
import type { FieldInput } from './fields.js';
import { withMeta } from './meta.js';
import { entityPath, resolveRefs } from './resolve.js';
import { noun, requireOperation } from './words.js';

export interface CreateOptions {
  def: ResourceDef;
  /** The positional NAME, for resources that have names. */
  name?: string;
  input: FieldInput;
}

export function hasNameArgument(def: ResourceDef): boolean {
  return def.fields.name !== undefined && def.fields.name.create !== 'no';
}

export function buildCreate(deps: Deps, def: ResourceDef, run = runCreate): CommandUnknownOpts {
  requireOperation(def, 'create', 'create');
  const named = hasNameArgument(def);
  const command = withMeta(new Command('create'), {
    description: `Create ${/^[aeiou]/i.test(def.label) ? 'an' : 'a'} ${def.label}`,
    examples: [`ctl ${noun(def)} create ${named ? 'my-name ' : ''}--tags owner=ops`],
  });
  if (named) command.argument('<name>', `name of the new ${def.label}`);
  const flags = addFieldFlags(command, def, 'create', ['name']);
  return command.action(async (...args: unknown[]) => {
    const cmd = args[args.length - 1] as CommandUnknownOpts;
    const input = collectFields(cmd, flags);
    const missing = missingRequired(def, flags, input);
    if (missing.length > 0) throw new UsageError(`missing ${missing.join(', ')}`);
    await run({ def, name: named ? String(args[0]) : undefined, input }, deps);
  });
}

export async function runCreate(opts: CreateOptions, deps: Deps): Promise<void> {
  const base = opts.name === undefined ? {} : { name: opts.name };
  const id = await createEntity(await deps.api(), opts.def, { ...requiredBooleans(opts.def), ...base }, opts.input);
  announceCreated(deps.io, opts.def, opts.name, id);
}

/** A boolean the API requires on create (isAdmin) is false unless its flag is given. */
export function requiredBooleans(def: ResourceDef): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const [field, f] of Object.entries(def.fields)) if (f.create === 'required' && f.type.kind === 'boolean') out[field] = false;
  return out;
}

/** POSTs `base` plus the flags given, with references resolved to ids; returns the new id. */
export async function createEntity(api: ApiClient, def: ResourceDef, base: Record<string, unknown>, input: FieldInput): Promise<string> {
  const body = { ...base, ...input.body, ...(await resolveRefs(api, input.refs)) };
  const created = await api.post<{ id: string }>(entityPath(def), body, { api: def.api });
  return created.id;
}

/** stdout gets the id alone, for `id=$(ctl ... create ...)`; the sentence for humans goes to stderr. */
export function announceCreated(io: IO, def: ResourceDef, name: string | undefined, id: string): void {
  io.info(name === undefined ? `created ${def.label} ${id}` : `created ${def.label} "${name}" with id ${id}`);
  io.out(id);
}
