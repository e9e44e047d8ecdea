import type { EntityRef, Links } from '../../protocol/envelope.js';
import { resource, type ResourceDef } from '../../resources/index.js';
import type { Row } from '../store/repository.js';

/** `{self: ./identities/abc, authenticators: ./identities/abc/authenticators, ...}` */
export function links(def: ResourceDef, id: string): Links {
  return linksMaker(def)(id);
}

/** `compile` made once per resource: what it makes is used for every entity served. */
function perResource<T>(compile: (def: ResourceDef) => T): (def: ResourceDef) => T {
  const made = new WeakMap<ResourceDef, T>();
  return (def) => {
    let value = made.get(def);
    if (value === undefined) {
      value = compile(def);
      made.set(def, value);
    }
    return value;
  };
}

const linksMaker = perResource(compileLinks);

/**
 * A resource's links as one object literal naming each link, compiled once: every entity served has them, and
 * walking the declaration's relations per entity made an array of their names and an object V8 grew link by link.
 * A name given twice keeps its first place and its last value, as assignments one after the other did.
 */
function compileLinks(def: ResourceDef): (id: string) => Links {
  const names = [...Object.keys(def.relations ?? {}), ...(def.links ?? [])];
  const fields = names.map((name) => `${JSON.stringify(name)}: { href: self + ${JSON.stringify(`/${name}`)} }`);
  const self = `const self = ${JSON.stringify(`./${def.plural}/`)} + id;`;
  const body = `${self}\nreturn { self: { href: self }, ${fields.join(', ')} };`;
  return new Function('id', body) as (id: string) => Links;
}

export function entityRef(def: ResourceDef, id: string, name: string | null | undefined): EntityRef {
  return { _links: { self: { href: `./${def.plural}/${id}` } }, entity: def.plural, id, name: name ?? '' };
}

export type WireSerialiser = (row: Row) => Record<string, unknown>;

/**
 * The generic read model of a resource's stored rows (common fields, every field neither secret, virtual, internal
 * nor computed, an entity reference beside each reference field), compiled once from its declaration: every row of
 * every response is serialised, and walking the declaration's fields and flags per row was work done again each time.
 */
export const wireSerialiser: (def: ResourceDef) => WireSerialiser = perResource(compile);

/**
 * The serialiser as code: one statement per served field, each naming its field. An object given its properties by
 * computed names (`out[name] = value`) turns into a hash table past a dozen of them, and so did every answer's: then
 * slower to read, to copy into a presenter's answer and to stringify. Names are written as JSON string literals.
 */
function compile(def: ResourceDef): WireSerialiser {
  const targets: ResourceDef[] = [];
  const statements: string[] = [];
  if (def.hasSystemEntities === true) statements.push('out.isSystem = row.isSystem;');
  for (const [name, field] of Object.entries(def.fields)) {
    if (field.secret || field.virtual || field.internal || field.computed) continue;
    const key = JSON.stringify(name);
    statements.push(
      `v = row[${key}] ?? null;`,
      `${field.readsNull === true ? '' : 'if (v !== null) '}out[${key}] = v;`,
    );
    const type = field.type;
    if (type.kind === 'ref' && type.as) {
      const target = `targets[${targets.push(resource(type.resource)) - 1}]`;
      const ref = `entityRef(${target}, v, row.refNames[${key}])`;
      statements.push(`if (typeof v === 'string') out[${JSON.stringify(type.as)}] = ${ref};`);
    }
  }
  const body =
    'return (row) => {\n' +
    '  const out = { id: row.id, createdAt: row.createdAt, updatedAt: row.updatedAt, tags: row.tags, ' +
    '_links: links(row.id) };\n' +
    '  let v;\n' +
    statements.map((s) => `  ${s}\n`).join('') +
    '  return out;\n' +
    '};';
  const make = new Function('links', 'entityRef', 'targets', body);
  return make(linksMaker(def), entityRef, targets) as WireSerialiser;
}
