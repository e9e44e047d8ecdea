import { resource, type FieldType, type ResourceDef } from '../../resources/index.js';
import type { FilterSchema, ScalarSymbol, SetSymbol, SymbolType } from './filter-sql.js';
import { quote } from './fragment.js';
import { isSetField, setTableName } from './schema-model.js';

/** The ZitiQL symbols of a resource, derived from its catalogue entry: what `meta.filterableFields` lists. */
export function filterSchema(def: ResourceDef, alias = 'e'): FilterSchema {
  const col = (name: string) => `${alias}.${quote(name)}`;
  const symbols: Record<string, ScalarSymbol | SetSymbol> = {
    id: { kind: 'scalar', type: 'string', sql: col('id'), sortable: true },
    createdAt: { kind: 'scalar', type: 'datetime', sql: col('createdAt'), sortable: true },
    updatedAt: { kind: 'scalar', type: 'datetime', sql: col('updatedAt'), sortable: true },
    isSystem: { kind: 'scalar', type: 'boolean', sql: col('isSystem'), sortable: true },
  };
  for (const [name, field] of Object.entries(def.fields)) {
    if (!field.filterable) continue;
    if (isSetField(field)) {
      symbols[name] = { kind: 'set', type: 'string', table: quote(setTableName(def, name)), ownerColumn: '"ownerId"', valueColumn: '"value"' };
      continue;
    }
    const symbol: ScalarSymbol = { kind: 'scalar', type: symbolType(field.type), sql: col(name), sortable: field.sortable };
    if (field.type.kind === 'integer') symbol.integer = true;
    symbols[name] = symbol;
    // References are filterable by their id field and by their entity name (`identity = "x"`), as OpenZiti does.
    if (field.type.kind === 'ref' && field.type.as) symbols[field.type.as] = symbol;
    if (field.type.kind === 'ref' && field.type.filterByName) {
      const target = quote(resource(field.type.resource).table);
      symbols[`${field.type.as ?? name}.name`] = { kind: 'scalar', type: 'string', sql: `(SELECT r."name" FROM ${target} r WHERE r."id" = ${col(name)})`, sortable: true };
    }
  }
  return { idSql: col('id'), symbols, tagsSql: col('tags') };
}

function symbolType(type: FieldType): SymbolType {
  switch (type.kind) {
    case 'boolean':
      return 'boolean';
    case 'integer':
      return 'number';
    case 'string':
      return type.format === 'date-time' ? 'datetime' : 'string';
    default:
      return 'string';
  }
}

/** What `meta.filterableFields` reports. */
export function filterableFields(schema: FilterSchema): string[] {
  return Object.keys(schema.symbols);
}
