// The steps every `create` shares: required booleans default to false (or the noun's declared default),
// references are resolved to ids, the new id is printed for scripts. The generic create below is built from them,
// and so are nouns' own (identity/create.ts).
import { Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { Deps } from '../deps.js';
import { addFieldFlags, collectFields, flagName } from './fields.js';
import { addDryRun, dryRunnable } from './dry-run.js';
import { promptMissing } from './prompt.js';
import { withMeta } from './meta.js';
import { noun } from './words.js';
import { printWritten } from './written.js';
import type { ApiClient } from '../../client/types.js';
import type { ResourceDef } from '../../resources/types.js';
import type { FieldFlag, FieldInput } from './fields.js';

/**
 * Whether every field a create takes can be a flag: a secret (a password) must never be one, and a virtual field
 * turns into other rows that need a noun's own command. Such nouns bring their own create.
 */
export function hasGenericCreate(def: ResourceDef): boolean {
  return Object.values(def.fields).every((f) => f.create === 'no' || (!f.secret && !f.virtual));
}

/**
 * `ctl NOUN create NAME --flag ...`: the name as the argument, every other create field as a flag. What is required
 * and missing is asked for at a terminal (a usage error naming it elsewhere); `--dry-run` prints the POST instead.
 */
export function buildCreate(deps: Deps, def: ResourceDef, run = runCreate): CommandUnknownOpts {
  const n = noun(def);
  const named = 'name' in def.fields;
  const command: CommandUnknownOpts = withMeta(
    named
      ? new Command('create').argument('[name]', `name of the new ${def.label} (asked for when left out at a terminal)`)
      : new Command('create'),
    {
      description: `Create ${/^[aeiou]/i.test(def.label) ? 'an' : 'a'} ${def.label}; prints its id`,
      examples: createExamples(def, n, named),
    },
  );
  const flags = addFieldFlags(command, def, 'create', ['name']);
  addDryRun(command);
  return command.action(async (...args: unknown[]) => {
    const cmd = args[args.length - 1] as CommandUnknownOpts;
    await createAction(cmd, deps, def, flags, named ? (args[0] as string | undefined) : undefined, (name, input, d) =>
      run(def, { name, input }, d),
    );
  });
}

/**
 * The action of any create, generic or a noun's own (give the command `[name]`, its field flags and addDryRun):
 * asks for the name and the required flags left out (or fails naming them), reads the flags, and runs `work` with
 * deps that only print the writes under `--dry-run`. `present` lists required fields `work` sets itself.
 */
export async function createAction(
  cmd: CommandUnknownOpts,
  deps: Deps,
  def: ResourceDef,
  flags: readonly FieldFlag[],
  nameArg: string | undefined,
  work: (name: string | undefined, input: FieldInput, deps: Deps) => Promise<void>,
  present: readonly string[] = [],
): Promise<void> {
  const argument =
    'name' in def.fields ? { label: 'NAME', message: `Name of the new ${def.label}:`, value: nameArg } : undefined;
  const name = await promptMissing(cmd, flags, deps, { argument, present });
  await dryRunnable(cmd, deps, (d) => work(name, collectFields(cmd, flags), d));
}

/** Examples from the declaration: a name, the required flags with a sample value each, and a dry run. */
function createExamples(def: ResourceDef, n: string, named: boolean): string[] {
  const required = Object.entries(def.fields)
    .filter(([field, f]) => field !== 'name' && f.create === 'required' && f.type.kind !== 'boolean')
    .map(([field, f]) => {
      const value = f.type.kind === 'enum' ? f.type.values[0] : f.type.kind === 'object' ? '@data.json' : 'VALUE';
      return `--${flagName(def, field, f.type)} ${value}`;
    });
  const line = [`ctl ${n} create`, ...(named ? ['NAME'] : []), ...required].join(' ');
  return [line, `${line} --tag owner=ops --dry-run`, `ctl ${n} create --help`];
}

export async function runCreate(
  def: ResourceDef,
  opts: { name?: string; input: FieldInput },
  deps: Deps,
): Promise<void> {
  const base = { ...requiredBooleans(def), ...(opts.name === undefined ? {} : { name: opts.name }) };
  const id = await createEntity(await deps.api(), def, base, opts.input);
  await announceCreated(deps, def, opts.name, id);
}
import { entityPath, resolveInput } from './resolve.js';

/**
 * A boolean the API requires on create (isAdmin) is false unless its flag is given, or the noun's declared CLI
 * default (a service's encryptionRequired).
 */
export function requiredBooleans(def: ResourceDef): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const [field, f] of Object.entries(def.fields)) {
    if (f.create === 'required' && f.type.kind === 'boolean') out[field] = def.cli?.createDefaults?.[field] ?? false;
  }
  return out;
}

/** POSTs `base` plus the flags given, with references resolved to ids; returns the new id. */
export async function createEntity(
  api: ApiClient,
  def: ResourceDef,
  base: Record<string, unknown>,
  input: FieldInput,
): Promise<string> {
  const body = { ...base, ...input.body, ...(await resolveInput(api, input, def)) };
  const created = await api.post<{ id: string }>(entityPath(def), body, { api: def.api });
  return created.id;
}

/**
 * stdout gets the id alone, for `id=$(ctl ... create ...)`, or the new entity with -o json|yaml; the sentence for
 * humans goes to stderr.
 */
export async function announceCreated(
  deps: Deps,
  def: ResourceDef,
  name: string | undefined,
  id: string,
): Promise<void> {
  deps.io.info(name === undefined ? `created ${def.label} ${id}` : `created ${def.label} "${name}" with id ${id}`);
  await printWritten(deps, def, id, id);
}
