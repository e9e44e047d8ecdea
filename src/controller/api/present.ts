import type { EntityRef, Links } from '../../protocol/envelope.js';
import type { ResourceDef } from '../../resources/index.js';
import { wireSerialiser } from '../server/serialise.js';
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
 * The generic read model of a stored row (server/serialise.ts, compiled per resource). Resource handlers add what
 * is computed (see presenters.ts).
 */
export function toWire(def: ResourceDef, row: Row): Record<string, unknown> {
  return wireSerialiser(def)(row);
}
