import { chmodSync, closeSync, openSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { migrate } from './migrations.js';
import { openSqlite } from './sqlite-native.js';

export type Db = Database.Database;

/**
 * Opens the controller database. WAL with synchronous=FULL: a write is on disk before we answer, so nothing
 * acknowledged is lost if the process is killed. Foreign keys cascade deletes of dependants (authenticators,
 * enrollments, sessions of an identity) inside the same transaction.
 */
export function openDatabase(file: string, now: () => string = () => new Date().toISOString()): Db {
  // Password hashes live here: owner-only, and SQLite gives its -wal and -shm files the same mode.
  if (file !== ':memory:') {
    closeSync(openSync(file, 'a', 0o600));
    chmodSync(file, 0o600);
  }
  const db = openSqlite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db, now);
  return db;
}
