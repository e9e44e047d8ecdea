import type { ResourceDef } from '../../resources/index.js';
import type { Repository } from './repository.js';
import type { Store } from './store.js';

/** A repository's writes: reached only through the model's write path (src/controller/model/writes.ts). */
type RepositoryWrites = 'insert' | 'update' | 'delete' | 'deleteWhere' | 'ensure';

/** A repository as routes and hooks see it: every read, no write. */
export type ReadRepository = Omit<Repository, RepositoryWrites>;

/**
 * The store as routes and hooks see it: reads, transactions and the access index, but repositories without their
 * write methods, so that no write can skip the hooks its resource declares.
 */
export interface ReadStore extends Omit<Store, 'repo' | 'repoFor'> {
  repo(name: string): ReadRepository;
  repoFor(def: ResourceDef): ReadRepository;
}
