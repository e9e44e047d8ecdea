import type { FieldDef, FieldType, ResourceDef } from '../../resources/index.js';
import { BOUNDED_TAGS_SCHEMA, FIELD_LIMITS } from './limits.js';

/** JSON Schema (draft-07 subset, also valid in Swagger 2.0) derived from the catalogue. */
export type JsonSchema = Record<string, unknown>;
export type Verb = 'create' | 'replace' | 'patch';

export const TAGS_SCHEMA: JsonSchema = BOUNDED_TAGS_SCHEMA;

export function typeSchema(type: FieldType): JsonSchema {
  switch (type.kind) {
    case 'string': {
      const s: JsonSchema = { type: 'string' };
      if (type.minLength !== undefined) s.minLength = type.minLength;
      s.maxLength = type.maxLength ?? FIELD_LIMITS.stringMaxLength;
      if (type.format) s.format = type.format;
      return s;
    }
    case 'boolean':
      return { type: 'boolean' };
    case 'integer': {
      const s: JsonSchema = { type: 'integer' };
      if (type.minimum !== undefined) s.minimum = type.minimum;
      if (type.maximum !== undefined) s.maximum = type.maximum;
      return s;
    }
    case 'enum':
      return { type: 'string', enum: [...type.values] };
    case 'attributes':
      // Attributes are plain names: a leading # or @ would make them look like policy roles.
      return { type: 'array', maxItems: FIELD_LIMITS.attributesMaxItems, items: { type: 'string', minLength: 1, maxLength: 1024, pattern: '^[^#@]' } };
    case 'tags':
      return TAGS_SCHEMA;
    case 'object':
      return { type: 'object' };
    case 'map':
      return { type: 'object', maxProperties: FIELD_LIMITS.mapMaxKeys, additionalProperties: typeSchema(type.values) };
    case 'ref':
      return { type: 'string', minLength: 1, maxLength: FIELD_LIMITS.refMaxLength };
    case 'refList':
      return { type: 'array', items: { type: 'string', minLength: 1, maxLength: FIELD_LIMITS.refMaxLength } };
    case 'roles':
      // #attribute, @id or #all (alone: checked with the references, wire-protocol section 4).
      return { type: 'array', items: { type: 'string', pattern: '^[#@].+', maxLength: FIELD_LIMITS.refMaxLength } };
  }
}

function withNull(schema: JsonSchema): JsonSchema {
  const t = schema.type;
  return { ...schema, type: Array.isArray(t) ? [...t, 'null'] : [t, 'null'], ...(schema.enum ? { enum: [...(schema.enum as unknown[]), null] } : {}) };
}

function presence(field: FieldDef, verb: Verb): 'required' | 'optional' | 'no' {
  return verb === 'patch' ? field.patch : field[verb];
}

/** The body schema of create, replace or patch: unknown fields are refused, required ones enforced. */
export function bodySchema(def: ResourceDef, verb: Verb): JsonSchema {
  const properties: Record<string, JsonSchema> = { tags: withNull(TAGS_SCHEMA) };
  const required: string[] = [];
  for (const [name, field] of Object.entries(def.fields)) {
    const p = presence(field, verb);
    if (p === 'no' || field.readOnly || field.internal || field.computed) continue;
    const schema = typeSchema(field.type);
    properties[name] = field.nullable ? withNull(schema) : schema;
    if (p === 'required') required.push(name);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/** The read model's schema for the served spec: common fields plus every non-secret field. */
export function readSchema(def: ResourceDef): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    id: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    tags: TAGS_SCHEMA,
    _links: { type: 'object' },
  };
  for (const [name, field] of Object.entries(def.fields)) {
    if (field.secret || field.virtual || field.internal) continue;
    properties[name] = typeSchema(field.type);
    if (field.type.kind === 'ref' && field.type.as) properties[field.type.as] = { type: 'object' };
  }
  return { type: 'object', properties, required: ['id', 'createdAt', 'updatedAt', '_links'] };
}
