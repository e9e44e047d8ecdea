import type { FieldDef, FieldType } from './types.js';

/** Value types shared by several resources (interface document, C5). */
export const IDENTITY_TYPES = ['User', 'Device', 'Service', 'Router', 'Default'] as const;
export const TERMINATOR_PRECEDENCES = ['default', 'required', 'failed'] as const;
export const SEMANTICS = ['AllOf', 'AnyOf'] as const;

export const terminatorCost: FieldType = { kind: 'integer', minimum: 0, maximum: 65535 };
export const username: FieldType = { kind: 'string', minLength: 4, maxLength: 100 };
export const password: FieldType = { kind: 'string', minLength: 5, maxLength: 100 };
export const datetime: FieldType = { kind: 'string', format: 'date-time' };

/** A field the server maintains: returned, filterable if asked, never accepted in a body. */
export function serverField(type: FieldType, description: string, extra: Partial<FieldDef> = {}): FieldDef {
  return { type, description, create: 'no', replace: 'no', patch: 'no', readOnly: true, ...extra };
}

/** The store's own bookkeeping: a column that is never served nor accepted in any body. */
export function internalField(type: FieldType, description: string, extra: Partial<FieldDef> = {}): FieldDef {
  return { ...serverField(type, description, extra), internal: true };
}

/** A field the presenter computes: served (always present), never stored nor accepted in a body. */
export function computedField(type: FieldType, description: string): FieldDef {
  return { type, description, create: 'no', replace: 'no', patch: 'no', readOnly: true, computed: true };
}

/** The usual `name`: required on create and replace, unique, filterable and sortable. */
export function nameField(description: string): FieldDef {
  return {
    type: { kind: 'string', minLength: 1, maxLength: 1024 },
    description,
    create: 'required',
    replace: 'required',
    patch: 'optional',
    unique: true,
    filterable: true,
    sortable: true,
  };
}

/** A field fixed at creation: required on create, never changed, filterable and sortable (owner, method, ...). */
export function createOnly(type: FieldType, description: string): FieldDef {
  return { type, description, create: 'required', replace: 'no', patch: 'no', filterable: true, sortable: true };
}

/** The tags every entity carries (`tags` is a base field, not declared per resource): optional on every write. */
export function tagsField(description: string): FieldDef {
  return { type: { kind: 'tags' }, description, create: 'optional', replace: 'optional', patch: 'optional' };
}

/** The role attributes policies select an entity by (`#attribute`): optional, nullable, filterable as a set. */
export function roleAttributesField(what: string): FieldDef {
  return optionalListField({ kind: 'attributes' }, `Attributes that policies select the ${what} by (#attribute)`);
}

/** Optional on every verb, `null` clears it to its default: the shape of most settings a write may leave out. */
export function optionalField(type: FieldType, description: string, extra: Partial<FieldDef> = {}): FieldDef {
  return { type, description, create: 'optional', replace: 'optional', patch: 'optional', ...extra };
}

/** An optional list (attributes, ids) that `null` empties and filters match as a set: role attributes, configs. */
export function optionalListField(type: FieldType, description: string): FieldDef {
  return optionalField(type, description, { nullable: true, default: [], filterable: true });
}

/** A policy's role set over `resource`: optional everywhere, empty by default (wire-protocol section 4). */
export function rolesField(resource: string, description: string): FieldDef {
  return {
    type: { kind: 'roles', resource },
    description,
    create: 'optional',
    replace: 'optional',
    patch: 'optional',
    nullable: true,
    default: [],
    filterable: true,
  };
}

/** `identityRolesDisplay`: each role of the set with a name a person reads (`@id` as `@name`), computed when served. */
export function namedRolesField(rolesField: string): FieldDef {
  const namedRole: FieldType = {
    kind: 'object',
    properties: { role: { kind: 'string' }, name: { kind: 'string' } },
    required: ['role', 'name'],
  };
  return computedField(
    { kind: 'array', items: namedRole },
    `The roles of ${rolesField}, each with the name it stands for`,
  );
}

/** How a policy combines the `#attribute` roles of each role set: every one (AllOf) or any one (AnyOf). */
export const semanticField: FieldDef = {
  type: { kind: 'enum', values: SEMANTICS },
  description: 'AllOf: an entity needs every #attribute of a role set; AnyOf: any one of them',
  create: 'required',
  replace: 'required',
  patch: 'optional',
  filterable: true,
  sortable: true,
};
