import { resource, type FieldType, type ResourceDef } from '../../resources/index.js';
import type { FilterSchema, LinkedSchema, ScalarSymbol, SetSymbol, SymbolType } from './filter-sql.js';
import { quote } from './fragment.js';
import {
  hasSubstringIndex,
  hasValueCounts,
  isSetField,
  setTableName,
  substringIndexName,
  valueCountsName,
} from './schema-model.js';

/** The ZitiQL symbols of a resource, derived from its catalogue entry: what `meta.filterableFields` lists. */
export function filterSchema(def: ResourceDef, alias = 'e'): FilterSchema {
  const col = (name: string) => `${alias}.${quote(name)}`;
  const symbols: Record<string, ScalarSymbol | SetSymbol> = {
    id: { kind: 'scalar', type: 'string', sql: col('id'), sortable: true },
    createdAt: { kind: 'scalar', type: 'datetime', sql: col('createdAt'), sortable: true },
    updatedAt: { kind: 'scalar', type: 'datetime', sql: col('updatedAt'), sortable: true },
    isSystem: { kind: 'scalar', type: 'boolean', sql: col('isSystem'), sortable: true },
  };
  const links: Record<string, LinkedSchema> = {};
  for (const [name, field] of Object.entries(def.fields)) {
    if (!field.filterable) continue;
    if (isSetField(field)) {
      symbols[name] = {
        kind: 'set',
        type: 'string',
        table: quote(setTableName(def, name)),
        ownerColumn: '"ownerId"',
        valueColumn: '"value"',
        ...(hasValueCounts(field) ? { valueCounts: valueCountsName(def, name) } : {}),
      };
      continue;
    }
    const symbol: ScalarSymbol = {
      kind: 'scalar',
      type: symbolType(field.type),
      sql: col(name),
      sortable: field.sortable,
    };
    if (field.type.kind === 'integer') symbol.integer = true;
    if (hasSubstringIndex(name, field)) symbol.substringIndex = substringIndexName(def.table, name);
    symbols[name] = symbol;
    if (field.type.kind !== 'ref') continue;
    // A reference is filterable by its id under each name it goes by (`identity = "x"`, a config's `type`), and
    // through each of them by the referenced entity's own symbols (`identity.name`), as in OpenZiti.
    const target = resource(field.type.resource);
    const names = [field.type.as, field.type.symbol].filter((n): n is string => n !== undefined);
    const linkedAlias = `${alias}_r`;
    let linked: FilterSchema | undefined;
    const link: LinkedSchema = {
      fkSql: col(name),
      from: `${quote(target.table)} ${linkedAlias}`,
      schema: () => (linked ??= filterSchema(target, linkedAlias)),
    };
    for (const other of names) symbols[other] = symbol;
    for (const linkName of names.length > 0 ? names : [name]) links[linkName] = link;
  }
  return { idSql: col('id'), symbols, tagsSql: col('tags'), links };
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
