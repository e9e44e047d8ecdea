/** Makes a row's values, in the order of its columns, an object keyed by column name. */
export type RowMaker = (values: readonly unknown[]) => Record<string, unknown>;

/**
 * A row as an object, by a function made once per statement whose object literal names each column (as a JSON
 * string): later columns of the same name win, as when a driver names them. Given its columns by computed names
 * (`row[name] = value`), an object of more than a dozen turns into a hash table: 1 us to make for an identity's
 * row, then slower to read, against 20 ns for the literal.
 */
export function rowMaker(columns: readonly string[]): RowMaker {
  // `"__proto__": v` in a literal sets the object's prototype; as a computed name it is a field like any other.
  const key = (c: string) => (c === '__proto__' ? '["__proto__"]' : JSON.stringify(c));
  const fields = columns.map((c, i) => `${key(c)}: values[${i}]`).join(', ');
  return new Function('values', `return { ${fields} };`) as RowMaker;
}
