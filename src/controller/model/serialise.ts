import type { EntityRef, Links } from '../../protocol/envelope.js';
import { resource, type ResourceDef } from '../../resources/index.js';
import type { Row } from '../store/repository.js';

/** `{self: ./identities/abc, authenticators: ./identities/abc/authenticators, ...}` */
export function links(def: ResourceDef, id: string): Links {
  const self = `./${def.plural}/${id}`;
  const out: Links = { self: { href: self } };
  for (const name of Object.keys(def.relations ?? {})) out[name] = { href: `${self}/${name}` };
  for (const name of def.links ?? []) out[name] = { href: `${self}/${name}` };
  return out;
}

export function entityRef(def: ResourceDef, id: string, name: string | null | undefined): EntityRef {
  return { _links: { self: { href: `./${def.plural}/${id}` } }, entity: def.plural, id, name: name ?? '' };
}

/** A field the generic read model serves: whether it is served when null, and the entity reference beside it. */
interface Served {
  name: string;
  readsNull: boolean;
  ref?: { as: string; target: ResourceDef };
}

export type WireSerialiser = (row: Row) => Record<string, unknown>;

const compiled = new WeakMap<ResourceDef, WireSerialiser>();

/**
 * The generic read model of a resource's stored rows (common fields, every field neither secret, virtual, internal
 * nor computed, an entity reference beside each reference field), compiled once from its declaration: every row of
 * every response is serialised, and walking the declaration's fields and flags per row was work done again each time.
 */
export function wireSerialiser(def: ResourceDef): WireSerialiser {
  let serialise = compiled.get(def);
  if (!serialise) {
    serialise = compile(def);
    compiled.set(def, serialise);
  }
  return serialise;
}

function compile(def: ResourceDef): WireSerialiser {
  const served: Served[] = [];
  for (const [name, field] of Object.entries(def.fields)) {
    if (field.secret || field.virtual || field.internal || field.computed) continue;
    const type = field.type;
    const ref = type.kind === 'ref' && type.as ? { as: type.as, target: resource(type.resource) } : undefined;
    served.push({ name, readsNull: field.readsNull === true, ref });
  }
  const system = def.hasSystemEntities === true;
  return (row) => {
    const out: Record<string, unknown> = {
      id: row.id,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      tags: row.tags,
      _links: links(def, row.id),
    };
    if (system) out.isSystem = row.isSystem;
    for (const { name, readsNull, ref } of served) {
      const value = row[name] ?? null;
      if (value !== null || readsNull) out[name] = value;
      if (ref && typeof value === 'string') out[ref.as] = entityRef(ref.target, value, row.refNames[name]);
    }
    return out;
  };
}
