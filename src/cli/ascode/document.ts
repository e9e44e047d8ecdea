import type { FieldDef, FieldType } from '../../resources/types.js';
import { FailureError } from '../../console/errors.js';
import type { Kind } from './kinds.js';
import { mapNested } from './nested.js';

/** An entity as the network file states it: write fields by their API names, other entities by name. */
export type FileEntity = Record<string, unknown> & { name: string };

/** The name of the entity of `resource` with id `id`, if the controller has it. */
type NameOf = (resource: string, id: string) => string | undefined;

/**
 * The fields a file states for an entity of `kind`, in the order the catalogue declares them: what a create
 * takes, less what is never served back (secrets, virtual fields such as an identity's enrollment, the store's
 * bookkeeping), then the tags every entity carries.
 */
export function fileFields(kind: Kind): Array<[string, FieldDef]> {
  return Object.entries(kind.def.fields).filter(
    ([, f]) => f.create !== 'no' && !f.secret && !f.virtual && !f.internal && !f.readOnly && !f.computed,
  );
}

/** The field, by its API name, that the file states under `key`. */
export function fileField(kind: Kind, key: string): [string, FieldDef] | undefined {
  return fileFields(kind).find(([field, def]) => fileKey(field, def) === key);
}

/** The key a field has in the file: a reference drops its id (`configTypeId` is `configType`, by name). */
export function fileKey(field: string, def: FieldDef): string {
  if (def.type.kind !== 'ref') return field;
  return def.type.as ?? field.replace(/Id$/, '');
}

/**
 * A controller row as the file states it. Stable whatever order the controller serves things in: sets
 * (attributes, roles, reference lists) sorted, object keys sorted, null and absent values left out.
 */
export function toFileEntity(kind: Kind, row: Record<string, unknown>, nameOf: NameOf): FileEntity {
  const out: Record<string, unknown> = {};
  const where = `${kind.def.label} "${String(row.name)}"`;
  for (const [field, def] of fileFields(kind)) {
    const value = readValue(field, def, row, (resource, id) => {
      const name = nameOf(resource, id);
      if (name === undefined) {
        throw new FailureError(`${where}: ${field} names ${resource} "${id}", which the controller does not have`);
      }
      return name;
    });
    if (value !== undefined && value !== null) out[fileKey(field, def)] = value;
  }
  const tags = row.tags;
  const hasTags = tags !== null && typeof tags === 'object' && Object.keys(tags).length > 0;
  if (hasTags) out.tags = sortedKeys(tags);
  return mapNested(kind, out, (resource, id) => {
    const name = nameOf(resource, id);
    if (name === undefined) throw new FailureError(`${where}: names ${resource} "${id}", which the controller lacks`);
    return name;
  }) as FileEntity;
}

type Namer = (resource: string, id: string) => string;

function readValue(field: string, def: FieldDef, row: Record<string, unknown>, name: Namer): unknown {
  const type = def.type;
  const value = row[field];
  if (def.read?.type?.kind === 'entityRef') return entityName(value);
  if (value === undefined || value === null) return value;
  switch (type.kind) {
    case 'ref': {
      const served = type.as === undefined ? undefined : entityName(row[type.as]);
      return typeof served === 'string' ? served : name(type.resource, String(value));
    }
    case 'refList':
      return normalise(
        type,
        (value as string[]).map((id) => name(type.resource, id)),
      );
    case 'roles':
      return normalise(
        type,
        (value as string[]).map((r) => (r.startsWith('@') ? `@${name(type.resource, r.slice(1))}` : r)),
      );
    default:
      return normalise(type, value);
  }
}

/** An entity reference as served (`{id, name, ...}`) by its name; a bare value as it is. */
function entityName(value: unknown): unknown {
  return value !== null && typeof value === 'object' && 'name' in value ? (value as { name: unknown }).name : value;
}

/**
 * A value as the file compares it, whatever order it was given in: sets (attributes, roles, reference lists)
 * sorted, object keys sorted.
 */
export function normalise(type: FieldType, value: unknown): unknown {
  if ((type.kind === 'attributes' || type.kind === 'roles' || type.kind === 'refList') && Array.isArray(value)) {
    return [...(value as string[])].sort();
  }
  return type.kind === 'object' || type.kind === 'map' || type.kind === 'tags' ? sortedKeys(value) : value;
}

/** Objects with their keys in order, all the way down; arrays keep their order (it may mean something). */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, sortedKeys(v)]));
}

/** The order of a kind's entities in the file. */
export function byName(a: FileEntity, b: FileEntity): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
