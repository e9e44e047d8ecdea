import type { FieldType } from '../../resources/index.js';

/** How field values map to columns in every dialect: booleans as 0/1, structured values as JSON text. */
function isJson(type: FieldType): boolean {
  const kind = type.kind;
  return kind === 'attributes' || kind === 'tags' || kind === 'object' || kind === 'map' || kind === 'refList' || kind === 'roles' || kind === 'array';
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

export function decodeValue(type: FieldType, value: unknown): unknown {
  if (value === null || value === undefined) return isJson(type) ? (isList(type) ? [] : {}) : null;
  if (type.kind === 'boolean') return Number(value) === 1 || value === true;
  if (type.kind === 'integer') return Number(value);
  if (isJson(type)) return JSON.parse(value as string);
  return value;
}
