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
      // Never beyond what the store's 64-bit integer columns hold.
      return {
        type: 'integer',
        minimum: Math.max(type.minimum ?? FIELD_LIMITS.integerMinimum, FIELD_LIMITS.integerMinimum),
        maximum: Math.min(type.maximum ?? FIELD_LIMITS.integerMaximum, FIELD_LIMITS.integerMaximum),
      };
    }
    case 'enum':
      return { type: 'string', enum: [...type.values] };
    case 'attributes':
      // Attributes are plain names: a leading # or @ would make them look like policy roles.
      return {
        type: 'array',
        maxItems: FIELD_LIMITS.attributesMaxItems,
        items: { type: 'string', minLength: 1, maxLength: 1024, pattern: '^[^#@]' },
      };
    case 'tags':
      return TAGS_SCHEMA;
    case 'object':
      return type.checked ? checkedObjectSchema(type) : { type: 'object' };
    case 'entityRef':
      return { type: 'object' };
    case 'array': {
      const s: JsonSchema = { type: 'array', items: typeSchema(type.items) };
      if (type.minItems !== undefined) s.minItems = type.minItems;
      if (type.maxItems !== undefined) s.maxItems = type.maxItems;
      return s;
    }
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

/** A body object held to its declared members (each of its type, the required ones present); others pass. */
function checkedObjectSchema(type: Extract<FieldType, { kind: 'object' }>): JsonSchema {
  const properties = Object.fromEntries(Object.entries(type.properties ?? {}).map(([k, t]) => [k, typeSchema(t)]));
  return { type: 'object', properties, required: [...(type.required ?? [])] };
}

function withNull(schema: JsonSchema): JsonSchema {
  const t = schema.type;
  return {
    ...schema,
    type: Array.isArray(t) ? [...t, 'null'] : [t, 'null'],
    ...(schema.enum ? { enum: [...(schema.enum as unknown[]), null] } : {}),
  };
}

function presence(field: FieldDef, verb: Verb): 'required' | 'optional' | 'no' {
  return verb === 'patch' ? field.patch : field[verb];
}

/** The body schema of create, replace or patch: unknown fields are refused, required ones enforced. */
export function bodySchema(def: ResourceDef, verb: Verb): JsonSchema {
  const properties: Record<string, JsonSchema> = { tags: withNull(TAGS_SCHEMA) };
  const required: string[] = [];
  const conditional: JsonSchema[] = [];
  for (const [name, field] of Object.entries(def.fields)) {
    const p = presence(field, verb);
    if (p === 'no' || field.readOnly || field.internal || field.computed) continue;
    const schema = field.nullable ? withNull(typeSchema(field.type)) : typeSchema(field.type);
    if (field.when) {
      // Validated (and required) under its discriminator's condition only: see whenSchema.
      properties[name] = {};
      conditional.push(whenSchema(name, schema, field.when, p === 'required'));
    } else {
      properties[name] = schema;
      if (p === 'required') required.push(name);
    }
  }
  return {
    type: 'object',
    properties,
    required,
    additionalProperties: false,
    ...(conditional.length ? { allOf: conditional } : {}),
  };
}

/**
 * A field that belongs to some values of a discriminator (`domains` when `typeId` is DOMAIN): validated, and required
 * as declared, when the discriminator matches; when it names another value the field is not this body's and is
 * accepted unchecked, for the resource's behaviour to drop (OpenZiti's discriminated bodies ignore another kind's
 * members, and its console sends every kind's with empty values). Absent discriminator (a patch): validated, for
 * the behaviour to check against the stored value.
 */
function whenSchema(
  name: string,
  schema: JsonSchema,
  when: { field: string; in: readonly string[] },
  required: boolean,
): JsonSchema {
  return {
    if: { properties: { [when.field]: { enum: [...when.in] } }, required: [when.field] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keywords, not a thenable
    then: { properties: { [name]: schema }, ...(required ? { required: [name] } : {}) },
    // biome-ignore lint/suspicious/noThenProperty: as above
    else: { if: { not: { required: [when.field] } }, then: { properties: { [name]: schema } } },
  };
}

/**
 * How a value is served, in Swagger 2.0 terms (the write bounds are the body schemas' business). Entity references,
 * links and tags point at the document's shared definitions (`entityRef`, `links`, `tags`).
 */
export function readTypeSchema(type: FieldType): JsonSchema {
  switch (type.kind) {
    case 'string':
      return type.format && type.format !== 'pem' ? { type: 'string', format: type.format } : { type: 'string' };
    case 'boolean':
      return { type: 'boolean' };
    case 'integer':
      return { type: 'integer' };
    case 'enum':
      return { type: 'string', enum: [...type.values] };
    case 'attributes':
    case 'refList':
    case 'roles':
      return { type: 'array', items: { type: 'string' } };
    case 'tags':
      return { $ref: '#/definitions/tags' };
    case 'object': {
      const s: JsonSchema = { type: 'object' };
      if (type.properties)
        s.properties = Object.fromEntries(Object.entries(type.properties).map(([k, t]) => [k, readTypeSchema(t)]));
      if (type.required?.length) s.required = [...type.required];
      return s;
    }
    case 'array': {
      const s: JsonSchema = { type: 'array', items: readTypeSchema(type.items) };
      if (type.minItems !== undefined) s.minItems = type.minItems;
      return s;
    }
    case 'map':
      return { type: 'object', additionalProperties: readTypeSchema(type.values) };
    case 'ref':
      return { type: 'string' };
    case 'entityRef':
      return { $ref: '#/definitions/entityRef' };
  }
}

/** Swagger 2.0 has no null type: `x-nullable` says it (beside a `$ref` it would be ignored, hence the allOf). */
function readNullable(schema: JsonSchema): JsonSchema {
  return schema.$ref ? { allOf: [schema], 'x-nullable': true } : { ...schema, 'x-nullable': true };
}

const JSON_KINDS: ReadonlySet<FieldType['kind']> = new Set([
  'attributes',
  'tags',
  'object',
  'map',
  'refList',
  'roles',
  'array',
]);

/**
 * A stored field that always has a value: declared so (`read.required`), a non-null default, required on create and
 * never cleared, or a JSON value (the store reads a missing one as empty).
 */
function neverNull(field: FieldDef): boolean {
  if (field.read?.required !== undefined) return field.read.required;
  if (field.default !== undefined && field.default !== null) return true;
  return (field.create === 'required' && !field.nullable) || JSON_KINDS.has(field.type.kind);
}

/** Whether a field is in every read model: computed (the presenter fills it), served even when null, or never null. */
function alwaysServed(field: FieldDef): boolean {
  return Boolean(field.computed || (field.virtual && field.read?.type) || field.readsNull) || neverNull(field);
}

/**
 * The read model of a resource for the served document: the common fields, every served catalogue field with its
 * read type (`read` where it differs from the written one), an entity reference beside each `ref` with `as`, and
 * the computed fields its presenter fills. Required are the fields every read model carries.
 */
export function readSchema(def: ResourceDef): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    id: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    tags: { $ref: '#/definitions/tags' },
    _links: { $ref: '#/definitions/links' },
  };
  const required = ['id', 'createdAt', 'updatedAt', '_links'];
  if (def.hasSystemEntities) {
    properties.isSystem = { type: 'boolean', description: 'Built in: may not be changed or deleted' };
    required.push('isSystem');
  }
  for (const [name, field] of Object.entries(def.fields)) {
    if (field.secret || field.internal || (field.virtual && !field.read?.type)) continue;
    const schema = readTypeSchema(field.read?.type ?? field.type);
    properties[name] = field.readsNull ? readNullable(schema) : schema;
    if (!('$ref' in properties[name])) properties[name].description = field.description;
    // A field of some kinds only (`when`) is in the read models of those kinds only.
    if (alwaysServed(field) && !field.when) required.push(name);
    if (field.type.kind === 'ref' && field.type.as && !field.read?.type) {
      properties[field.type.as] = { $ref: '#/definitions/entityRef' };
      if (neverNull(field)) required.push(field.type.as);
    }
  }
  return { type: 'object', description: def.description, properties, required };
}
