import { CATALOGUE, type ResourceDef } from '../../resources/index.js';
import { openDatabase, type Db } from './db.js';
import { Repository } from './repository.js';

/**
 * The controller's storage: one repository per catalogue resource over one SQLite database. Kept behind this
 * small surface (repositories plus `tx`) so another database can implement it later.
 */
export class Store {
  private readonly repos = new Map<string, Repository>();

  constructor(readonly db: Db) {
    for (const def of CATALOGUE) this.repos.set(def.name, new Repository(db, def));
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

  /** Runs fn in one transaction: all of it is written, or none. */
  tx<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  close(): void {
    this.db.close();
  }
}
