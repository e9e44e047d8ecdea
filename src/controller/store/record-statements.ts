import type { Driver } from './driver.js';
import type { Store } from './store.js';

/** For tests: the text of every row-reading statement the store sends from now on, in order (what plans assert). */
export function recordStatements(store: Store): string[] {
  const driver = (store as unknown as { driver: Driver }).driver;
  const statements: string[] = [];
  const all = driver.all.bind(driver);
  driver.all = ((sql: string, params?: unknown[]) => {
    statements.push(sql);
    return all(sql, params);
  }) as Driver['all'];
  return statements;
}
