import type { FieldType } from '../../resources/index.js';

/** How field values map to columns in every dialect: booleans as 0/1, structured values as JSON text. */
function isJson(type: FieldType): boolean {
  const kind = type.kind;
  return (
    kind === 'attributes' ||
    kind === 'tags' ||
    kind === 'object' ||
    kind === 'map' ||
    kind === 'refList' ||
    kind === 'roles' ||
    kind === 'array'
  );
}

function isList(type: FieldType): boolean {
  return type.kind === 'attributes' || type.kind === 'refList' || type.kind === 'roles' || type.kind === 'array';
}

export function encodeValue(type: FieldType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (type.kind === 'boolean') return value ? 1 : 0;
  if (isJson(type)) return JSON.stringify(value);
  return value;
}

/** Where a stored value was read from: what a damage report names (never the value itself). */
export interface StoredAt {
  /** The resource's label, e.g. "identity". */
  entity: string;
  id: string;
  field: string;
}

/** Where a value was read from, or what says it when asked: only a damaged value is reported. */
type StoredWhere = StoredAt | (() => StoredAt);

const where = (at: StoredWhere): StoredAt => (typeof at === 'function' ? at() : at);

/**
 * A stored value that cannot be read as its declared type: the database was damaged or edited by hand. Not a bug
 * in the controller and not the client's mistake; its message names the entity and field but not the bytes, which
 * may be anything.
 */
export class DamagedRowError extends Error {
  override name = 'DamagedRowError';
  constructor(readonly at: StoredAt) {
    super(
      `the stored ${at.entity} '${at.id}' is damaged: its field ${at.field} cannot be read; ` +
        'restore the database from a backup',
    );
  }
}

export function decodeValue(type: FieldType, value: unknown, at: StoredWhere): unknown {
  if (value === null || value === undefined) return isJson(type) ? (isList(type) ? [] : {}) : null;
  if (type.kind === 'boolean') return Number(value) === 1 || value === true;
  if (type.kind === 'integer') {
    const n = Number(value);
    if (!Number.isFinite(n)) throw new DamagedRowError(where(at));
    return n;
  }
  if (isJson(type)) return decodeJson(value, at);
  return value;
}

/** JSON text as stored by encodeValue; anything else is damage. */
export function decodeJson(value: unknown, at: StoredWhere): unknown {
  // Empty tags, lists and maps are most of a row's JSON values: made without a call of the parser.
  if (value === '{}') return {};
  if (value === '[]') return [];
  try {
    return JSON.parse(value as string);
  } catch {
    throw new DamagedRowError(where(at));
  }
}
