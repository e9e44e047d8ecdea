import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);

/** Opens a SQLite database through the native binding, loaded on first use. */
export function openSqliteDatabase(file: string): BetterSqlite3.Database {
  const Database = require('better-sqlite3') as typeof BetterSqlite3;
  return new Database(file);
}
