import { Argument } from '@commander-js/extra-typings';
import type { ColumnDef, ResourceDef } from '../../resources/types.js';
import { completeWith } from '../completion/hints.js';

/** The noun a resource goes by on the command line (`identity`, `auth-policy`). */
export function noun(def: ResourceDef): string {
  return def.cli?.noun ?? def.name;
}

/** Plural for messages: `auth policies`, `api sessions`. */
export function plural(def: ResourceDef): string {
  return def.plural.replace(/-/g, ' ');
}

/** Columns of a resource without its own: id, name (when it has one), created. */
export function columnsOf(def: ResourceDef): readonly ColumnDef[] {
  if (def.cli?.columns) return def.cli.columns;
  return [
    { header: 'ID', field: 'id' },
    ...('name' in def.fields ? [{ header: 'Name', field: 'name' }] : []),
    { header: 'Created', field: 'createdAt' },
  ];
}

/** What to call an entity after an update: the name the update gave it (`--name`), else the name or id typed. */
export function nameAfter(ref: string, body: Record<string, unknown>): string {
  return typeof body.name === 'string' ? body.name : ref;
}

/** What a name argument is called in usage lines: resources without names are addressed by id only. */
export function refArgument(def: ResourceDef): 'name-or-id' | 'id' {
  return 'name' in def.fields ? 'name-or-id' : 'id';
}

/**
 * The positional `<name-or-id>` of a resource (or `<placeholder>` where a command takes two), completed in the shell
 * with the names the controller knows.
 */
export function nameArgument(def: ResourceDef, description: string, placeholder: string = refArgument(def)) {
  return completeWith(new Argument(`<${placeholder}>`, description), { kind: 'resource', resource: def.name });
}

/** Several `<name-or-id...>`, as `delete` takes. */
export function nameArguments(def: ResourceDef, description: string) {
  return completeWith(new Argument(`<${refArgument(def)}...>`, description), { kind: 'resource', resource: def.name });
}

/** Throws at build time when a verb is registered for a resource whose catalogue entry does not allow it. */
export function requireOperation(def: ResourceDef, op: ResourceDef['operations'][number], verb: string): void {
  if (!def.operations.includes(op))
    throw new Error(`'${noun(def)} ${verb}' needs the '${op}' operation, which ${def.name} does not have`);
}
