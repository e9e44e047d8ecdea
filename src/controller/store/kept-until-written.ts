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
 *
 * Kept within one stretch of Store.cacheEpoch, as the API session cache is: while this process is the database's
 * one writer, the writes it hears are its own; controllers sharing a database hear of each other's writes when a
 * request catches up (Store.catchUp), before it asks, so what one of them wrote the next request to any other sees.
 */
export function keptUntilWritten<T>(
  store: Pick<Store, 'onWrite' | 'readsWaitForWrites' | 'cacheEpoch'>,
  resources: readonly string[],
  read: () => Promise<T>,
): () => Promise<T> {
  let known: { value: Promise<T>; at: number; epoch: number } | undefined;
  store.onWrite((event) => {
    if (event.resource === '*' || resources.includes(event.resource)) known = undefined;
  });
  return () => {
    const epoch = store.cacheEpoch;
    if (epoch === undefined) return read();
    const now = Date.now();
    const stale = !known || known.epoch !== epoch || (!store.readsWaitForWrites && now - known.at >= RACE_BOUND_MS);
    if (!known || stale) {
      const value = read();
      known = { value, at: now, epoch };
      value.catch(() => {
        if (known?.value === value) known = undefined;
      });
    }
    return known.value;
  };
}
