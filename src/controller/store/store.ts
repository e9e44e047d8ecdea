import { CATALOGUE, type ResourceDef } from '../../resources/index.js';
import type { Statement } from 'better-sqlite3';
import { openDatabase, type Db } from './db.js';
import { Repository } from './repository.js';

/**
 * The controller's storage: one repository per catalogue resource over one SQLite database. Kept behind this
 * small surface (repositories plus `tx`) so another database can implement it later.
 */
export class Store {
  private readonly repos = new Map<string, Repository>();
  private readonly statements = new Map<string, Statement<unknown[]>>();

  constructor(readonly db: Db) {
    for (const def of CATALOGUE) this.repos.set(def.name, new Repository((sql) => this.prepare(sql), def));
  }

  static open(file: string): Store {
    return new Store(openDatabase(file));
  }

  repo(name: string): Repository {
    const repo = this.repos.get(name);
    if (!repo) throw new Error(`no repository for resource '${name}'`);
    return repo;
  }

  repoFor(def: ResourceDef): Repository {
    return this.repo(def.name);
  }

  /** A prepared statement, compiled once per SQL text: preparing costs more than running on hot paths. */
  prepare(sql: string): Statement<unknown[]> {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare<unknown[]>(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  /** Runs fn in one transaction: all of it is written, or none. */
  tx<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  close(): void {
    this.db.close();
  }
}
