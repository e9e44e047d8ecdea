import type { FieldType, ResourceDef } from '../../resources/index.js';

/** How catalogue values map to SQLite columns: booleans as 0/1, structured values as JSON text. */
function isJson(type: FieldType): boolean {
  return type.kind === 'attributes' || type.kind === 'tags' || type.kind === 'object' || type.kind === 'map';
}

export function encodeValue(type: FieldType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (type.kind === 'boolean') return value ? 1 : 0;
  if (isJson(type)) return JSON.stringify(value);
  return value;
}

export function decodeValue(type: FieldType, value: unknown): unknown {
  if (value === null || value === undefined) return isJson(type) ? emptyJson(type) : null;
  if (type.kind === 'boolean') return value === 1 || value === true;
  if (isJson(type)) return JSON.parse(value as string);
  return value;
}

function emptyJson(type: FieldType): unknown {
  return type.kind === 'attributes' ? [] : {};
}

/** The columns a resource keeps for its catalogue fields (common columns come on top). */
export function storedFields(def: ResourceDef): string[] {
  return Object.keys(def.fields).filter((name) => !def.fields[name].virtual);
}

export function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}
