import { readFileSync } from 'node:fs';
import { InvalidArgumentError, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { tagsField } from '../../resources/common.js';
import { resource } from '../../resources/index.js';
import type { FieldDef, FieldType, ResourceDef } from '../../resources/types.js';
import { completeWith } from '../completion/hints.js';
import { keepsLast } from '../completion/option-facts.js';
import { given, integer, typedList } from './flags.js';
import { UsageError } from '../../console/errors.js';
import { FromStdin, parseJsonObject } from './stdin-flags.js';
import { decodeUtf8 } from '../../console/utf8.js';
import { fileProblem } from '../../console/file-problem.js';

/**
 * Flags derived from a resource's fields, for create and update. The catalogue says which fields a verb accepts and
 * their types; this module turns each into one flag with the right parser, so that every resource takes its fields
 * the same way: booleans as --x/--no-x, enums with their choices, integers within bounds, references by name or
 * id, reference lists and policy roles as comma-separated or repeated values (names or ids, `@name` in roles), role
 * attributes as `-a a,b`, tags as repeated `--tag k=v`, JSON objects as text, `@FILE` or `-`.
 */

export type WriteVerb = 'create' | 'patch';

/** One derived flag: which field it sets and under which commander attribute names its values are found. */
export interface FieldFlag {
  field: string;
  /** The commander attribute name of the flag. */
  key: string;
  /** Attribute names of hidden synonyms (`--identity-roles` beside `--identities`), read as the same flag. */
  aliasKeys?: string[];
  /** The flag as typed, e.g. `--identities`: error messages and prompts name it. */
  flag: string;
  type: FieldType;
  nullable: boolean;
  /** The verb's body must carry the field (a create's required fields): prompted for, or a usage error. */
  required: boolean;
  /** The flag's option: its parser and choices serve prompting too. */
  option: Option;
  /** On update, tags edit the current ones rather than replace them. */
  verb: WriteVerb;
  /** A boolean field named in the negative (`noTraversal`): `--no-traversal` sets it, `--traversal` clears it. */
  inverted?: boolean;
}

/** A value still to resolve from a name to an id; errors name `flag`, else the flag derived from the field. */
export interface PendingRef {
  field: string;
  resource: string;
  value: string;
  flag?: string;
}

/** Several values to resolve: a reference list (names or ids) or a role set (`#attr`, `@name-or-id`, `#all`). */
export interface PendingList {
  field: string;
  resource: string;
  values: string[];
  flag?: string;
}

/** A tag value as the API takes it. */
export type TagValue = string | number | boolean | null;

/** An update's tag changes made on top of the current tags (read, merge, patch). */
export interface TagEdit {
  set: Record<string, TagValue>;
  remove: string[];
}

/**
 * What the parsed flags say to write: plain values, and values still to resolve from names to ids. The optional
 * members are present only when a flag of that kind was given, so that "nothing given" is `{body: {}, refs: []}`.
 */
export interface FieldInput {
  body: Record<string, unknown>;
  refs: PendingRef[];
  refLists?: PendingList[];
  roles?: PendingList[];
  /** Update only: tags to set or remove, keeping the others. */
  tagEdit?: TagEdit;
}

const TAGS = tagsField(
  'a tag as key=value (a string) or key:=JSON (a number, true, false or null); repeat for several',
);

/** Map-valued fields (per-service costs) need their keys resolved too; they have no flag yet. */
function hasFlag(type: FieldType): boolean {
  return type.kind !== 'map';
}

/**
 * Fields the API accepts for compatibility but does not keep: the controller stores every identity as type Default
 * (Router identities belong to routers), so a `--type` flag would accept `Service` and quietly store something else.
 */
const ACCEPTED_NOT_KEPT: Record<string, readonly string[]> = { identity: ['type'] };

/**
 * Fields an update body may carry (OpenZiti's update models have them) but that the controller ignores once the
 * entity exists: an update flag for them would report success and change nothing.
 */
const SET_AT_CREATION: Record<string, readonly string[]> = { service: ['encryptionRequired'] };

/** The fields a verb takes as flags, tags included (every entity carries tags). */
export function writableFields(
  def: ResourceDef,
  verb: WriteVerb,
  exclude: readonly string[] = [],
): Array<[string, FieldDef]> {
  const fixed = verb === 'patch' ? (SET_AT_CREATION[def.name] ?? []) : [];
  const ignored = [...(ACCEPTED_NOT_KEPT[def.name] ?? []), ...fixed];
  const own = Object.entries(def.fields).filter(
    ([name, f]) =>
      !f.readOnly &&
      !ignored.includes(name) &&
      (verb === 'create' ? f.create !== 'no' : f.patch === 'optional') &&
      hasFlag(f.type),
  );
  return [...own, ['tags', TAGS] as [string, FieldDef]].filter(([name]) => !exclude.includes(name));
}

const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * The flag of a field: `isAdmin` → `admin`, `authPolicyId` → `auth-policy`, the role attributes field →
 * `attributes`, a reference list in the singular (`configs` → `config`, repeated), a role set by the plural of
 * what it selects (`identityRoles` → `identities`), tags as `tag` (repeated), else the field in kebab-case.
 */
/** A boolean field named in the negative, such as `noTraversal`. */
function isNegative(field: string, type: FieldType): boolean {
  return type.kind === 'boolean' && /^no[A-Z]/.test(field);
}

export function flagName(def: ResourceDef, field: string, type: FieldType): string {
  if (type.kind === 'attributes' && def.roleAttributes?.field === field) return 'attributes';
  if (type.kind === 'boolean' && /^is[A-Z]/.test(field)) return kebab(field.slice(2, 3).toLowerCase() + field.slice(3));
  // `noTraversal` → `traversal`: commander reads `--no-traversal` as the negation of `--traversal` (see inverted).
  if (isNegative(field, type)) return kebab(field.slice(2, 3).toLowerCase() + field.slice(3));
  if (type.kind === 'ref' && field.endsWith('Id')) return kebab(field.slice(0, -2));
  if (type.kind === 'refList' && field.endsWith('s')) return kebab(field.slice(0, -1));
  if (type.kind === 'roles') return resource(type.resource).plural;
  if (type.kind === 'tags') return 'tag';
  return kebab(field);
}

/**
 * Hidden synonyms of a flag: the field's own kebab-case name where the flag differs, for roles, reference lists,
 * tags and references (`--identity-roles`, `--tags`, `--auth-policy-id`): the API's name works as the flag. A
 * signer's `--enroll-auth-policy-id` is also what that flag was called when it took only an id.
 */
function synonyms(field: string, name: string, type: FieldType): string[] {
  const plain = kebab(field);
  const named = ['roles', 'refList', 'tags', 'ref'].includes(type.kind);
  return named && plain !== name ? [plain] : [];
}

const camel = (flag: string): string => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * Adds one flag per writable field and returns how to read them back. `names` renames the flags of some fields
 * (a policy noun may call `edgeRouterRoles` `--routers`); the derived name stays as a hidden synonym.
 */
export function addFieldFlags(
  command: CommandUnknownOpts,
  def: ResourceDef,
  verb: WriteVerb,
  exclude: readonly string[] = [],
  names: Readonly<Record<string, string>> = {},
): FieldFlag[] {
  const flags = writableFields(def, verb, exclude).map(([field, f]) => {
    const derived = flagName(def, field, f.type);
    const name = names[field] ?? derived;
    const inverted = isNegative(field, f.type) && name === derived;
    const fallback = verb === 'create' ? def.cli?.createDefaults?.[field] : undefined;
    const [option, ...others] = optionsFor(name, f, verb, def.name, inverted, fallback);
    for (const o of [option, ...others]) command.addOption(o);
    const aliasKeys: string[] = [];
    for (const alias of new Set([...synonyms(field, name, f.type), ...(name === derived ? [] : [derived])])) {
      if (alias === name) continue;
      const [hidden] = optionsFor(alias, f, verb, def.name);
      command.addOption(hidden.hideHelp());
      aliasKeys.push(camel(alias));
    }
    const required = verb === 'create' && f.create === 'required' && f.type.kind !== 'boolean';
    const flag: FieldFlag = {
      field,
      key: camel(name),
      flag: `--${inverted ? 'no-' : ''}${name}`,
      type: f.type,
      nullable: Boolean(f.nullable),
      required,
      option,
      verb,
    };
    if (inverted) flag.inverted = true;
    if (aliasKeys.length > 0) flag.aliasKeys = aliasKeys;
    return flag;
  });
  if (verb === 'patch' && flags.some((f) => f.type.kind === 'tags')) {
    command.addOption(
      new Option('--remove-tag <key>', 'a tag to remove, keeping the others; repeat for several').argParser(repeated),
    );
  }
  return flags;
}

/** `fallback`: what create sends when the flag is not given, said in the help where it is not false. */
function optionsFor(
  name: string,
  f: FieldDef,
  verb: WriteVerb,
  resourceName: string,
  inverted = false,
  fallback?: boolean,
): Option[] {
  const clears = verb === 'patch' && f.nullable ? ' ("" clears it)' : '';
  const on = fallback === true ? ` (the default: --no-${name} turns it off)` : '';
  const description = lowerFirst(f.description, f.type.kind === 'enum' ? f.type.values : []) + clears + on;
  switch (f.type.kind) {
    case 'boolean':
      return inverted
        ? [new Option(`--no-${name}`, description), new Option(`--${name}`, `the opposite of --no-${name}`)]
        : [new Option(`--${name}`, description), new Option(`--no-${name}`, `the opposite of --${name}`)];
    case 'enum':
      return [new Option(`--${name} <value>`, description).choices(f.type.values)];
    case 'integer':
      return [
        new Option(`--${name} <n>`, description).argParser(
          integer(f.type.minimum ?? Number.MIN_SAFE_INTEGER, f.type.maximum ?? Number.MAX_SAFE_INTEGER),
        ),
      ];
    case 'attributes': {
      const short = name === 'attributes' ? '-a, ' : '';
      const option = new Option(
        `${short}--${name} <list>`,
        `${lowerFirst(f.description)}: comma-separated, replaces the set ("" clears it)`,
      );
      return [completeWith(option.argParser(attributeList), { kind: 'attribute', resource: resourceName, list: true })];
    }
    case 'tags': {
      const how = verb === 'patch' ? '; sets these tags and keeps the others (--tag "" first drops them all)' : '';
      return [
        new Option(`--${name} <key=value>`, `${f.description}${how}`).argParser(
          (v: string, previous: string[] | undefined) => {
            parseTag(v);
            return repeated(v, previous);
          },
        ),
      ];
    }
    case 'object': {
      const option = new Option(
        `--${name} <json>`,
        `${description} (a JSON object, @FILE to read it from a file, - from stdin)`,
      );
      return [
        option.argParser(
          keepsLast(verb === 'patch' && f.nullable ? (v: string) => (v === '' ? '' : jsonObject(v)) : jsonObject),
        ),
      ];
    }
    case 'ref':
      return [
        completeWith(new Option(`--${name} <name-or-id>`, description), {
          kind: 'resource',
          resource: f.type.resource,
        }),
      ];
    case 'refList': {
      const option = new Option(
        `--${name} <names-or-ids>`,
        `${lowerFirst(f.description)}: names or ids, comma-separated or repeated; replaces the list ("" clears it)`,
      );
      return [
        completeWith(option.argParser(attributeList), { kind: 'resource', resource: f.type.resource, list: true }),
      ];
    }
    case 'roles': {
      const option = new Option(
        `--${name} <roles>`,
        `${lowerFirst(f.description)}; @name works for @id; comma-separated or repeated ("" clears them)`,
      );
      return [completeWith(option.argParser(roleList), { kind: 'role', resource: f.type.resource, list: true })];
    }
    default:
      return [new Option(`--${name} <value>`, description)];
  }
}

/**
 * Descriptions start a sentence in the catalogue and continue one in help; a value (`Dial`, `AllOf`) keeps its case.
 */
function lowerFirst(text: string, values: readonly string[] = []): string {
  const first = /^[A-Za-z]+/.exec(text)?.[0] ?? '';
  if (values.includes(first) || /[A-Z]/.test(first.slice(1))) return text;
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** Every value of a repeated flag, in order. */
function repeated(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** `-a sales,emea -a ops` gives [sales, emea, ops]; `-a ""` gives [] (clear the set, never null). */
export function attributeList(value: string, previous: string[] | undefined): string[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return [...new Set([...(previous ?? []), ...items])];
}

/** A role (`#attribute`, `@name-or-id`, `#all`) as given, or the usage error that says how to write one. */
export function checkRole(role: string): string {
  if (!/^[#@]./.test(role))
    throw new InvalidArgumentError(`"${role}" is no role: write #attribute, @name-or-id or #all.`);
  return role;
}

/**
 * Policy roles, comma-separated or repeated: `#attribute`, `@name-or-id` or `#all`, which selects everything and so
 * stands alone (wire-protocol section 4). A malformed role is refused before anything is sent.
 */
export function roleList(value: string, previous: string[] | undefined): string[] {
  const roles = attributeList(value, previous);
  roles.forEach(checkRole);
  if (roles.includes('#all') && roles.length > 1)
    throw new InvalidArgumentError('#all selects everything and stands alone.');
  return roles;
}

/**
 * One tag: `key=value` is a string (`version=1.10` stays "1.10"); `key:=JSON` takes a number, true, false, null or a
 * quoted string, for the typed values tags may hold. Returns undefined for "" (no tag: on update, drop them all).
 */
export function parseTag(text: string): [string, TagValue] | undefined {
  if (text === '') return undefined;
  const eq = text.indexOf('=');
  if (eq <= 0 || (eq === 1 && text[0] === ':'))
    throw new InvalidArgumentError(`"${text}": expected key=value or key:=JSON.`);
  if (text[eq - 1] !== ':') return [text.slice(0, eq), text.slice(eq + 1)];
  const key = text.slice(0, eq - 1);
  let value: unknown;
  try {
    value = JSON.parse(text.slice(eq + 1));
  } catch {
    throw new InvalidArgumentError(`"${text}": after := comes JSON (a number, true, false, null or "text").`);
  }
  if (value !== null && !['string', 'number', 'boolean'].includes(typeof value)) {
    throw new InvalidArgumentError(`"${text}": a tag value is a string, a number, true, false or null.`);
  }
  return [key, value as TagValue];
}

/** `--tag env=prod --tag team=` gives {env: 'prod', team: ''}; "" starts over from no tags. */
export function tagPair(value: string, previous: Record<string, TagValue> | undefined): Record<string, TagValue> {
  const tag = parseTag(value);
  return tag === undefined ? {} : { ...previous, [tag[0]]: tag[1] };
}

/** A JSON object given as text, as `@FILE` (read from the file) or as `-` (from stdin, when the command runs). */
export const jsonObject = keepsLast((value: string): Record<string, unknown> => {
  // Typed as what the action sees: readStdinFlags replaces the marker before any action runs.
  if (value === '-')
    return new FromStdin((text) => parseJsonObject(text, 'stdin', InvalidArgumentError)) as unknown as Record<
      string,
      unknown
    >;
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = decodeUtf8(readFileSync(value.slice(1)), value.slice(1), InvalidArgumentError);
    } catch (err) {
      if (err instanceof InvalidArgumentError) throw err;
      throw new InvalidArgumentError(`cannot read ${value.slice(1)}: ${fileProblem(err)}.`);
    }
  }
  return parseJsonObject(text, text === value ? undefined : value.slice(1), InvalidArgumentError);
});

/** The values a flag was given under its name and its hidden synonyms, or undefined when none was typed. */
function typed(command: CommandUnknownOpts, flag: FieldFlag): unknown[] | undefined {
  const values = command.opts();
  const found = [flag.key, ...(flag.aliasKeys ?? [])].filter((k) => given(command, k)).map((k) => values[k]);
  return found.length === 0 ? undefined : found;
}

/**
 * Reads back the flags the user actually typed (never defaults). An empty value clears a nullable field (null);
 * role attributes, reference lists and roles are cleared with [] by their parsers. On update, tags are an edit of
 * the current ones unless `--tag ""` drops them all first.
 */
export function collectFields(command: CommandUnknownOpts, flags: readonly FieldFlag[]): FieldInput {
  const input: FieldInput = { body: {}, refs: [] };
  for (const flag of flags) {
    const found = typed(command, flag);
    if (found === undefined) continue;
    const kind = flag.type.kind;
    if (kind === 'tags') {
      collectTags(input, found.flat() as string[], flag.verb === 'patch');
      continue;
    }
    if (kind === 'refList' || kind === 'roles' || kind === 'attributes') {
      const values = [...new Set(found.flat() as string[])];
      if (kind === 'roles') checkRoles(flag.flag, values);
      if (kind === 'attributes') input.body[flag.field] = values;
      else
        (kind === 'roles' ? (input.roles ??= []) : (input.refLists ??= [])).push({
          field: flag.field,
          resource: flag.type.resource,
          values,
          flag: flag.flag,
        });
      continue;
    }
    const value = flag.inverted ? !found[found.length - 1] : found[found.length - 1];
    if (value === '' && flag.nullable) input.body[flag.field] = null;
    else if (kind === 'ref') input.refs.push({ field: flag.field, resource: flag.type.resource, value: String(value) });
    else input.body[flag.field] = value;
  }
  const removedTags = typedList(command, 'removeTag');
  if (removedTags) {
    const edit = (input.tagEdit ??= { set: {}, remove: [] });
    edit.remove.push(...removedTags);
  }
  return input;
}

/** Each flag's values were checked as typed; values given under a flag and its synonym together are checked here. */
function checkRoles(flag: string, roles: string[]): void {
  try {
    roleList(roles.join(','), undefined);
  } catch (err) {
    throw new UsageError(`${flag}: ${(err as Error).message}`);
  }
}

function collectTags(input: FieldInput, texts: string[], patch: boolean): void {
  const reset = texts.lastIndexOf('');
  const tags: Record<string, TagValue> = {};
  for (const text of texts.slice(reset + 1)) {
    const [key, value] = parseTag(text)!;
    tags[key] = value;
  }
  if (!patch || reset >= 0) input.body.tags = tags;
  else input.tagEdit = { set: tags, remove: [] };
}
