import { UsageError } from '../../console/errors.js';
import { tagsField } from '../../resources/common.js';
import { resource as resourceDef } from '../../resources/index.js';
import type { FieldDef } from '../../resources/types.js';
import { fileFields, fileKey, normalise } from './document.js';
import type { FileEntity } from './document.js';
import type { Declaration, Declared } from './input.js';
import type { Kind } from './kinds.js';
import { KINDS } from './kinds.js';
import { checkConfigData } from './config-data.js';
import { nestedNames } from './nested.js';
import type { Network } from './network.js';

export type Action = 'create' | 'update' | 'delete' | 'conflict' | 'replace' | 'repoint';

/**
 * One change of the plan. Fields are named as the file names them; `from` absent on create, `to` on delete. With
 * --replace a conflict becomes a replace (delete, then create), and what names the replaced entity by id a repoint.
 */
export interface Change {
  action: Action;
  kind: Kind;
  name: string;
  /** The stated fields that differ (update, conflict), or all stated fields (create). */
  fields: Record<string, { from?: unknown; to?: unknown }>;
  /** Why a conflict cannot be applied; why a create leaves fields to a later update, and when that is written. */
  reason?: string;
  /** Written in that kind's turn, after its creates and updates, rather than in its own (forward.ts). */
  after?: Kind;
  /**
   * The entity as the file states it (create, update, conflict); for a replace, over what the controller has (what
   * the file leaves out is kept); for a repoint, as the controller has it.
   */
  entity?: FileEntity;
  /** The controller's id (update, delete, conflict, replace before its delete, repoint). */
  id?: string;
  /** Replace: the entity as the controller had it, created again should the new one be refused. */
  previous?: FileEntity;
  /** Replace: the kind in whose turn the old entity is deleted (its own, or earlier when it holds what goes first). */
  deleteAt?: Kind;
  /** Repoint: the fields to write again, each with the names of the replaced entities it holds. */
  repoint?: Record<string, string[]>;
  /** Repoint: the replaces whose new ids it writes, all of one kind. */
  replaced?: Change[];
}

/** The kind in whose turn a change is written: its own, or the one it waits for (`after`). */
export const turnOf = (change: Change): Kind => change.after ?? change.kind;

export interface Plan {
  changes: Change[];
}

/**
 * What applying the declaration to the network would change, in dependency order. Only the fields the file states
 * are compared: what it leaves out is left alone. Checks the whole declaration first: every name it gives in a
 * reference or role is in the file or on the controller, and a create has the fields a create needs.
 */
export function planChanges(declaration: Declaration, network: Network, prune = false): Plan {
  checkReferences(declaration, network, prune);
  checkConfigData(declaration, network);
  const changes: Change[] = [];
  for (const kind of KINDS) {
    const current = new Map((network.document[kind.key] ?? []).map((e) => [e.name, e]));
    for (const { entity, file } of declaration.entities.filter((d) => d.kind === kind)) {
      const id = network.ids.get(kind.def.name)?.get(entity.name);
      const now = current.get(entity.name);
      if (id === undefined) changes.push(creation(kind, entity, file));
      else if (now !== undefined) {
        const change = difference(kind, entity, now, id);
        if (change) changes.push(change);
      }
      // else: a built-in or system entity (OpenZiti's export lists built-in config types): left alone.
    }
  }
  if (prune) changes.push(...deletions(declaration, network));
  return { changes };
}

/**
 * With --prune: the entities of the kinds the file declares that it does not name, in reverse dependency order.
 * The network holds no built-in or system rows, nor what the controller owns, so none of them is ever listed.
 */
function deletions(declaration: Declaration, network: Network): Change[] {
  const changes: Change[] = [];
  for (const kind of [...KINDS].reverse().filter((k) => declaration.kinds.has(k))) {
    const named = new Set(declaration.entities.filter((d) => d.kind === kind).map((d) => d.entity.name));
    for (const entity of network.document[kind.key] ?? []) {
      if (named.has(entity.name)) continue;
      const id = network.ids.get(kind.def.name)?.get(entity.name);
      changes.push({ action: 'delete', kind, name: entity.name, fields: {}, id });
    }
  }
  return changes;
}

function stated(kind: Kind): Array<[string, FieldDef]> {
  return [...fileFields(kind).map(([f, def]) => [fileKey(f, def), def] as [string, FieldDef]), ['tags', TAGS]];
}

const TAGS = tagsField('tags');

function creation(kind: Kind, entity: FileEntity, file: string): Change {
  for (const [field, def] of fileFields(kind)) {
    const key = fileKey(field, def);
    const applies = def.when === undefined || def.when.in.includes(String(entity[def.when.field]));
    if (def.create === 'required' && applies && entity[key] === undefined) {
      throw new UsageError(`${file}: ${kind.def.label} "${entity.name}": '${key}' is required to create it`);
    }
  }
  const fields = Object.fromEntries(Object.entries(entity).map(([k, v]) => [k, { to: v }]));
  return { action: 'create', kind, name: entity.name, fields, entity };
}

function difference(kind: Kind, entity: FileEntity, now: FileEntity, id: string): Change | undefined {
  const fields: Change['fields'] = {};
  const fixed: string[] = [];
  for (const [key, def] of stated(kind)) {
    if (entity[key] === undefined || kind.createOnly?.includes(key)) continue;
    const to = normalise(def.type, entity[key]);
    if (same(to, now[key])) continue;
    fields[key] = { from: now[key], to };
    if (def.patch === 'no' || kind.fixedAfterCreate?.includes(key)) fixed.push(key);
  }
  if (Object.keys(fields).length === 0) return undefined;
  if (fixed.length > 0) {
    const reason = `${fixed.join(', ')} cannot change after create`;
    return { action: 'conflict', kind, name: entity.name, fields, entity, id, reason };
  }
  return { action: 'update', kind, name: entity.name, fields, entity, id };
}

/** Equal as the file states them; the export leaves empty tags out, so no tags and `{}` are the same. */
function same(stated: unknown, current: unknown): boolean {
  const empty = (v: unknown) => v !== null && typeof v === 'object' && Object.keys(v).length === 0;
  if (current === undefined && empty(stated)) return true;
  return JSON.stringify(stated) === JSON.stringify(current ?? null);
}

/**
 * Every name the declaration gives in a reference, reference list or role: in the file, or on the controller and
 * not deleted by --prune (an entity of a kind the file declares that it does not name, not built in).
 */
function checkReferences(declaration: Declaration, network: Network, prune: boolean): void {
  const declared = new Map<string, Set<string>>();
  for (const { kind, entity } of declaration.entities) {
    const names = declared.get(kind.def.name) ?? new Set<string>();
    names.add(entity.name);
    declared.set(kind.def.name, names);
  }
  const pruned = (resource: string, name: string) => {
    const kind = [...declaration.kinds].find((k) => k.def.name === resource);
    return prune && kind !== undefined && (network.document[kind.key] ?? []).some((e) => e.name === name);
  };
  /** Why the name cannot be given, if it cannot. */
  const missing = (resource: string, name: string): string | undefined => {
    if (declared.get(resource)?.has(name)) return undefined;
    if (network.ids.get(resource)?.has(name) !== true) return 'which is neither in the file nor on the controller';
    return pruned(resource, name) ? 'which --prune deletes: the file does not declare it' : undefined;
  };
  const check = (item: Declared, key: string, resource: string, name: string) => {
    const why = missing(resource, name);
    if (why !== undefined) {
      const what = `${item.kind.def.label} "${item.entity.name}"`;
      throw new UsageError(`${item.file}: ${what}: ${key} names ${resourceDef(resource).label} "${name}", ${why}`);
    }
  };
  for (const item of declaration.entities) {
    for (const [field, def] of fileFields(item.kind)) {
      const key = fileKey(field, def);
      const value = item.entity[key];
      const isList = def.type.kind === 'refList' || def.type.kind === 'roles';
      if (isList && value !== undefined && value !== null && !Array.isArray(value)) {
        throw new UsageError(`${item.file}: ${item.kind.def.label} "${item.entity.name}": ${key} is not a list`);
      }
      for (const name of namesIn(def, value)) {
        const target = (def.type as { resource: string }).resource;
        check(item, key, target, name);
      }
    }
    for (const { at, resource, name } of nestedNames(item.kind, item.entity)) {
      check(item, at, resource, name);
    }
  }
}

/** The entity names a stated value gives (`@name` of roles; not `#attribute` nor `#all`). */
export function namesIn(def: FieldDef, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (def.type.kind === 'ref') return [String(value)];
  if (def.type.kind === 'refList') return (value as unknown[]).map(String);
  if (def.type.kind !== 'roles') return [];
  return (value as unknown[])
    .map(String)
    .filter((r) => r.startsWith('@'))
    .map((r) => r.slice(1));
}
