/**
 * SQL text with its bound parameters. Composing fragments keeps placeholders and values in step, and only
 * fragments can be interpolated by `sql`, so nothing reaches SQL text without going through `raw()` (text the
 * code itself wrote) or `param()` (a value, always bound). Placeholders are `?` in every dialect; a driver that
 * numbers them (PostgreSQL) rewrites them when it runs the statement.
 */
export interface Fragment {
  readonly sql: string;
  readonly params: readonly unknown[];
}

export const raw = (sql: string): Fragment => ({ sql, params: [] });

/** Binds a literal value; booleans become 0/1 as stored. */
export const param = (value: string | number | boolean): Fragment => ({
  sql: '?',
  params: [typeof value === 'boolean' ? Number(value) : value],
});

export function sql(strings: TemplateStringsArray, ...parts: Fragment[]): Fragment {
  let text = strings[0];
  const params: unknown[] = [];
  parts.forEach((part, i) => {
    text += part.sql + strings[i + 1];
    params.push(...part.params);
  });
  return { sql: text, params };
}

export function join(fragments: Fragment[], separator: string): Fragment {
  return {
    sql: fragments.map((f) => f.sql).join(separator),
    params: fragments.flatMap((f) => f.params),
  };
}

export function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}
