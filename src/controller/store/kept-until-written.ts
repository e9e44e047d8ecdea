import type { Store } from './store.js';

/**
 * Where reads do not wait for open writes (PostgreSQL), a read racing a commit could keep the old answer past the
 * write's invalidation: there a kept value is also read again after this long.
 */
const RACE_BOUND_MS = 1_000;

/**
 * A value read from the store once and kept until a repository writes one of `resources` (or the store says it was
 * changed outside them): for facts most requests ask and almost no write changes, such as "does any auth policy
 * require a second token", so that asking costs no statement.
 */
export function keptUntilWritten<T>(store: Pick<Store, 'onWrite' | 'readsWaitForWrites'>, resources: readonly string[], read: () => Promise<T>): () => Promise<T> {
  let known: { value: Promise<T>; at: number } | undefined;
  store.onWrite((event) => {
    if (event.resource === '*' || resources.includes(event.resource)) known = undefined;
  });
  return () => {
    const now = Date.now();
    if (!known || (!store.readsWaitForWrites && now - known.at >= RACE_BOUND_MS)) {
      const value = read();
      known = { value, at: now };
      value.catch(() => {
        if (known?.value === value) known = undefined;
      });
    }
    return known.value;
  };
}
