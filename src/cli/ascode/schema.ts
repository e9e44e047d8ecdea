import type { FieldType } from '../../resources/types.js';
import { fileFields, fileKey } from './document.js';
import { KINDS } from './kinds.js';
import type { Kind } from './kinds.js';

const NAME_OR_ROLE = 'an entity name; in a role, #attribute, @name or #all';

/**
 * The JSON Schema of the network file, derived from the catalogue: a key per kind, each a list of entities with
 * the kind's file fields (their API names and types, references as names), `name` required. Editors use it to
 * complete and check a file; `ctl apply` checks the same rules itself.
 */
export function networkSchema(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'ctl network file',
    description: 'An OpenZiti network as ctl export writes it and ctl diff and ctl apply read it',
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(KINDS.map((k) => [k.key, { type: 'array', items: entitySchema(k) }])),
  };
}

function entitySchema(kind: Kind): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [field, def] of fileFields(kind)) {
    properties[fileKey(field, def)] = { ...typeSchema(def.type), description: def.description };
  }
  properties.tags = { type: 'object', description: 'Tags: values null, string, boolean or number' };
  const { description } = kind.def;
  return { type: 'object', description, required: ['name'], additionalProperties: false, properties };
}

function typeSchema(type: FieldType): Record<string, unknown> {
  switch (type.kind) {
    case 'string':
      return { type: 'string', ...defined({ minLength: type.minLength, maxLength: type.maxLength }) };
    case 'integer':
      return { type: 'integer', ...defined({ minimum: type.minimum, maximum: type.maximum }) };
    case 'boolean':
      return { type: 'boolean' };
    case 'enum':
      return { enum: [...type.values] };
    case 'attributes':
      return { type: 'array', items: { type: 'string' }, uniqueItems: true };
    case 'ref':
      return { type: ['string', 'null'], description: `the name of a ${type.resource}` };
    case 'refList':
    case 'roles':
      return { type: 'array', items: { type: 'string', description: NAME_OR_ROLE } };
    case 'array':
      return { type: 'array', items: typeSchema(type.items) };
    case 'tags':
    case 'map':
    case 'object':
    case 'entityRef':
      return { type: 'object' };
  }
}

function defined(values: Record<string, number | undefined>): Record<string, number> {
  return Object.fromEntries(Object.entries(values).filter((e): e is [string, number] => e[1] !== undefined));
}
