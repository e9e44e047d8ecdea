import type { Presenter, Runtime, WriteHooks } from '../runtime.js';
import type { Route } from '../server/types.js';

/**
 * What a resource does beyond its catalogue entry, registered once in `registry.ts`: routes that take over or add to
 * the generic ones, write hooks, and a presenter for computed read fields. A resource may register several (each
 * adds its hooks). A resource with none of these needs no behaviour at all: its catalogue entry is enough.
 */
export interface ResourceBehaviour {
  resource: string;
  routes?(rt: Runtime): Route[];
  /** Run inside the transaction of every write of the resource (model/writes.ts), whichever route makes it. */
  hooks?: WriteHooks;
  present?: Presenter;
}
