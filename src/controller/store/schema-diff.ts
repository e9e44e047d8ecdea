import type { ColumnModel, IndexModel, SchemaModel, TableModel } from './schema-model.js';

/** One recorded change of the schema; a migration is a list of them, rendered as DDL by each dialect. */
export type SchemaOp =
  | { op: 'createTable'; table: TableModel }
  | { op: 'dropTable'; name: string }
  | { op: 'addColumn'; table: string; column: ColumnModel }
  | { op: 'dropColumn'; table: string; name: string }
  | { op: 'createIndex'; index: IndexModel }
  | { op: 'dropIndex'; name: string };

export interface Migration {
  /** 1, 2, 3 ...: applied in order, each once. */
  id: number;
  name: string;
  ops: SchemaOp[];
}

export const EMPTY_SCHEMA: SchemaModel = { tables: {}, indexes: {} };

/** The schema after `ops` (pure: the history replayed in a test, and the base of the next diff). */
export function applyOps(schema: SchemaModel, ops: readonly SchemaOp[]): SchemaModel {
  const next: SchemaModel = structuredClone(schema);
  for (const op of ops) {
    switch (op.op) {
      case 'createTable':
        next.tables[op.table.name] = structuredClone(op.table);
        break;
      case 'dropTable':
        delete next.tables[op.name];
        for (const [name, index] of Object.entries(next.indexes))
          if (index.table === op.name) delete next.indexes[name];
        break;
      case 'addColumn':
        next.tables[op.table].columns.push(structuredClone(op.column));
        break;
      case 'dropColumn':
        next.tables[op.table].columns = next.tables[op.table].columns.filter((c) => c.name !== op.name);
        break;
      case 'createIndex':
        next.indexes[op.index.name] = structuredClone(op.index);
        break;
      case 'dropIndex':
        delete next.indexes[op.name];
        break;
    }
  }
  return next;
}

/** Columns compare without their `default`: it only matters when a column is added to a table with rows. */
const columnShape = (c: ColumnModel) => JSON.stringify([c.name, c.type, c.notNull]);
const tableShape = (t: TableModel) => JSON.stringify([t.primaryKey, t.foreignKeys]);
const indexShape = (i: IndexModel) =>
  JSON.stringify([i.table, i.columns, i.unique, i.where ?? null, i.method ?? null, i.writeVersion ?? null]);

/**
 * The operations that turn `from` into `to`. A change a plain ALTER cannot make in both databases (another primary
 * key or foreign keys, a column whose type or nullability changes) is refused: it needs a hand-written migration.
 */
export function diffSchemas(from: SchemaModel, to: SchemaModel): SchemaOp[] {
  const ops: SchemaOp[] = [];
  for (const [name, index] of Object.entries(from.indexes)) {
    const target = to.indexes[name];
    if (!target || indexShape(target) !== indexShape(index)) ops.push({ op: 'dropIndex', name });
  }
  for (const name of Object.keys(from.tables)) if (!to.tables[name]) ops.push({ op: 'dropTable', name });
  for (const [name, table] of dependencyOrder(to.tables)) {
    const old = from.tables[name];
    if (!old) {
      ops.push({ op: 'createTable', table });
      continue;
    }
    if (tableShape(old) !== tableShape(table)) {
      throw new Error(
        `table ${name}: its primary or foreign keys changed; write that migration by hand (a table rebuild)`,
      );
    }
    const oldColumns = new Map(old.columns.map((c) => [c.name, c]));
    for (const column of table.columns) {
      const was = oldColumns.get(column.name);
      if (!was) {
        if (column.notNull && column.default === undefined) {
          throw new Error(`column ${name}.${column.name} is new and NOT NULL: give it a default, or make it optional`);
        }
        ops.push({ op: 'addColumn', table: name, column });
      } else if (columnShape(was) !== columnShape(column)) {
        throw new Error(`column ${name}.${column.name} changed its type or nullability; write that migration by hand`);
      }
    }
    const newNames = new Set(table.columns.map((c) => c.name));
    for (const column of old.columns)
      if (!newNames.has(column.name)) ops.push({ op: 'dropColumn', table: name, name: column.name });
  }
  for (const [name, index] of Object.entries(to.indexes)) {
    const was = from.indexes[name];
    if (!was || indexShape(was) !== indexShape(index)) ops.push({ op: 'createIndex', index });
  }
  return ops;
}

/**
 * Tables with the tables they refer to first: PostgreSQL checks a foreign key's table when it is created. A
 * table that refers to itself, or a cycle, keeps its place (SQLite and PostgreSQL both accept self-references).
 */
function dependencyOrder(tables: Record<string, TableModel>): [string, TableModel][] {
  const out: [string, TableModel][] = [];
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const visit = (name: string) => {
    if (placed.has(name) || visiting.has(name) || !tables[name]) return;
    visiting.add(name);
    for (const fk of tables[name].foreignKeys) if (fk.table !== name) visit(fk.table);
    visiting.delete(name);
    placed.add(name);
    out.push([name, tables[name]]);
  };
  for (const name of Object.keys(tables)) visit(name);
  return out;
}
