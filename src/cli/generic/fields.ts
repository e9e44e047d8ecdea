import { readFileSync } from 'node:fs';
import { InvalidArgumentError, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { FieldDef, FieldType, ResourceDef } from '../../resources/types.js';
import { completeWith } from '../completion/hints.js';
import { given, integer } from './flags.js';

/**
 * Flags derived from a resource's fields, for create and update. The catalogue says which fields a verb accepts and
 * their types; this module turns each into one flag with the right parser, so that every resource takes its fields
 * the same way: booleans as --x/--no-x, enums with their choices, integers within bounds, references by name or
 * id, role attributes as `-a a,b`, tags as repeated `--tags k=v`, JSON objects as text.
 */

export type WriteVerb = 'create' | 'patch';

/** One derived flag: which field it sets and under which commander attribute name its value is found. */
export interface FieldFlag {
  field: string;
  key: string;
  type: FieldType;
  nullable: boolean;
}

/** What the parsed flags say to write: plain values, and references still to resolve from names to ids. */
export interface FieldInput {
  body: Record<string, unknown>;
  refs: Array<{ field: string; resource: string; value: string }>;
}

const TAGS: FieldDef = {
  type: { kind: 'tags' },
  description: 'a tag as key=value; repeat for several (replaces all tags; --tags "" clears them)',
  create: 'optional',
  replace: 'optional',
  patch: 'optional',
};

/** Map-valued fields (per-service costs) need their keys resolved too; they have no flag yet. */
function hasFlag(type: FieldType): boolean {
  return type.kind !== 'map';
}

/** The fields a verb takes as flags, tags included (every entity carries tags). */
/**
 * Fields the API accepts for compatibility but does not keep: the controller stores every identity as type Default
 * (Router identities belong to routers), so a `--type` flag would accept `Service` and quietly store something else.
 */
const ACCEPTED_NOT_KEPT: Record<string, readonly string[]> = { identity: ['type'] };

export function writableFields(def: ResourceDef, verb: WriteVerb, exclude: readonly string[] = []): Array<[string, FieldDef]> {
  const ignored = ACCEPTED_NOT_KEPT[def.name] ?? [];
  const own = Object.entries(def.fields).filter(
    ([name, f]) =>
      !f.readOnly && !ignored.includes(name) && (verb === 'create' ? f.create !== 'no' : f.patch === 'optional') && hasFlag(f.type),
  );
  return [...own, ['tags', TAGS] as [string, FieldDef]].filter(([name]) => !exclude.includes(name));
}

const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** `isAdmin` → `admin`, `authPolicyId` → `auth-policy`, the role attributes field → `attributes`, else kebab-case. */
export function flagName(def: ResourceDef, field: string, type: FieldType): string {
  if (type.kind === 'attributes' && def.roleAttributes?.field === field) return 'attributes';
  if (type.kind === 'boolean' && /^is[A-Z]/.test(field)) return kebab(field.slice(2, 3).toLowerCase() + field.slice(3));
  if (type.kind === 'ref' && field.endsWith('Id')) return kebab(field.slice(0, -2));
  return kebab(field);
}

const camel = (flag: string): string => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** Adds one flag per writable field and returns how to read them back. */
export function addFieldFlags(
  command: CommandUnknownOpts,
  def: ResourceDef,
  verb: WriteVerb,
  exclude: readonly string[] = [],
): FieldFlag[] {
  return writableFields(def, verb, exclude).map(([field, f]) => {
    const name = flagName(def, field, f.type);
    for (const option of optionsFor(name, f, verb, def.name)) command.addOption(option);
    return { field, key: camel(name), type: f.type, nullable: Boolean(f.nullable) };
  });
}

function optionsFor(name: string, f: FieldDef, verb: WriteVerb, resourceName: string): Option[] {
  const clears = verb === 'patch' && f.nullable ? ' ("" clears it)' : '';
  const description = lowerFirst(f.description) + clears;
  switch (f.type.kind) {
    case 'boolean':
      return [new Option(`--${name}`, description), new Option(`--no-${name}`, `the opposite of --${name}`)];
    case 'enum':
      return [new Option(`--${name} <value>`, description).choices(f.type.values)];
    case 'integer':
      return [new Option(`--${name} <n>`, description).argParser(integer(f.type.minimum ?? Number.MIN_SAFE_INTEGER, f.type.maximum ?? Number.MAX_SAFE_INTEGER))];
    case 'attributes': {
      const short = name === 'attributes' ? '-a, ' : '';
      const option = new Option(`${short}--${name} <list>`, `${lowerFirst(f.description)}: comma-separated, replaces the set ("" clears it)`);
      return [completeWith(option.argParser(attributeList), { kind: 'attribute', resource: resourceName })];
    }
    case 'tags':
      return [new Option(`--${name} <key=value>`, f.description).argParser(tagPair)];
    case 'object':
      return [new Option(`--${name} <json>`, `${description} (a JSON object, @FILE to read it from a file, - from stdin)`).argParser(jsonObject)];
    case 'ref':
      return [completeWith(new Option(`--${name} <name-or-id>`, description), { kind: 'resource', resource: f.type.resource })];
    default:
      return [new Option(`--${name} <value>`, description)];
  }
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** `-a sales,emea -a ops` gives [sales, emea, ops]; `-a ""` gives [] (clear the set, never null). */
export function attributeList(value: string, previous: string[] | undefined): string[] {
  const items = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return [...new Set([...(previous ?? []), ...items])];
}

/** `--tags env=prod --tags team=` gives {env: 'prod', team: ''}; `--tags ""` gives {}. */
export function tagPair(value: string, previous: Record<string, string> | undefined): Record<string, string> {
  if (value === '') return previous ?? {};
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError('expected key=value.');
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

/** A JSON object given as text, as `@FILE` (read from the file) or as `-` (read from stdin). */
export function jsonObject(value: string): Record<string, unknown> {
  let text = value;
  if (value === '-' || value.startsWith('@')) {
    try {
      text = readFileSync(value === '-' ? 0 : value.slice(1), 'utf8');
    } catch (err) {
      throw new InvalidArgumentError(`cannot read ${value === '-' ? 'stdin' : value.slice(1)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidArgumentError(`not valid JSON${text === value ? '' : ` in ${value === '-' ? 'stdin' : value.slice(1)}`}.`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new InvalidArgumentError('expected a JSON object.');
  return parsed as Record<string, unknown>;
}

/**
 * Reads back the flags the user actually typed (never defaults). An empty value clears a nullable field (null);
 * role attributes are cleared with [] by their parser.
 */
export function collectFields(command: CommandUnknownOpts, flags: readonly FieldFlag[]): FieldInput {
  const values = command.opts() as Record<string, unknown>;
  const input: FieldInput = { body: {}, refs: [] };
  for (const flag of flags) {
    if (!given(command, flag.key)) continue;
    const value = values[flag.key];
    if (value === '' && flag.nullable) input.body[flag.field] = null;
    else if (flag.type.kind === 'ref') input.refs.push({ field: flag.field, resource: flag.type.resource, value: String(value) });
    else input.body[flag.field] = value;
  }
  return input;
}
