import type { ResourceDef } from '../../resources/index.js';
import { decodeJson, decodeValue } from './codec.js';

/** A stored row's columns as read, made the values a repository answers (`Row`, without `included`). */
export type RowDecoder = (raw: Record<string, unknown>) => Record<string, unknown>;

/**
 * The decoder of a resource's rows, compiled once into code naming each column (as a JSON string): an object given
 * more than a dozen fields by computed names (`row[name] = value`) turns into a hash table, and every row read did,
 * slower to make and to read. A lookup that reads some columns only (`columns`) leaves out the others, as before; the
 * names of referenced entities (`refSelect`'s `ref:<field>` columns) go to `refNames`. Where a value was read from is
 * made only for a damaged one.
 */
export function compileRowDecoder(
  def: ResourceDef,
  columns: readonly string[],
  refFields: readonly string[],
): RowDecoder {
  const statements = columns.map((name, i) => {
    const key = JSON.stringify(name);
    return `if (${key} in raw) { field = ${key}; row[${key}] = decodeValue(types[${i}], raw[${key}], at); }`;
  });
  for (const name of refFields) {
    const [column, key] = [JSON.stringify(`ref:${name}`), JSON.stringify(name)];
    statements.push(`if (${column} in raw) row.refNames[${key}] = raw[${column}];`);
  }
  const body =
    'return (raw) => {\n' +
    '  const id = raw.id;\n' +
    "  let field = 'tags';\n" +
    '  const at = () => ({ entity: label, id, field });\n' +
    '  const row = {\n' +
    '    id, createdAt: raw.createdAt, updatedAt: raw.updatedAt,\n' +
    "    tags: decodeJson(raw.tags ?? '{}', at), isSystem: Number(raw.isSystem) === 1, refNames: {},\n" +
    '  };\n' +
    statements.map((s) => `  ${s}\n`).join('') +
    '  return row;\n' +
    '};';
  const make = new Function('label', 'types', 'decodeValue', 'decodeJson', body);
  const types = columns.map((name) => def.fields[name].type);
  return make(def.label, types, decodeValue, decodeJson) as RowDecoder;
}
