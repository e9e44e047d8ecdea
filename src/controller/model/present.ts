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

/**
 * The generic read model of a stored row: common fields, every non-secret catalogue field, and an entity
 * reference beside each reference field. Resource handlers add what is computed (see presenters.ts).
 */
export function toWire(def: ResourceDef, row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: row.id,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    tags: row.tags,
    _links: links(def, row.id),
  };
  if (def.hasSystemEntities) out.isSystem = row.isSystem;
  for (const [name, field] of Object.entries(def.fields)) {
    if (field.secret || field.virtual || field.internal || field.computed) continue;
    const value = row[name] ?? null;
    if (value !== null || field.readsNull) out[name] = value;
    if (field.type.kind === 'ref' && field.type.as && typeof row[name] === 'string') {
      out[field.type.as] = entityRef(resource(field.type.resource), row[name] as string, row.refNames[name]);
    }
  }
  return out;
}
