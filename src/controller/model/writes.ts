import type { EntityWrites, Runtime, Write, WriteHooks } from '../runtime.js';
import type { Row } from '../store/repository.js';
import type { Store } from '../store/store.js';

/**
 * The only code that writes entities: each write runs its resource's hooks around the repository's write, inside
 * one transaction (the caller's when one is open), so whatever the hooks maintain (sessions ended, the memory kept
 * per identity, a derived table) cannot be skipped by a route that writes. `store` is the writable store, which
 * nothing else in the runtime holds; `rt` is what the hooks are given. A write that no hook of its resource
 * hears is the repository's write alone, with no transaction of its own.
 */
export function entityWrites(store: Store, hooksOf: (resource: string) => WriteHooks, rt: () => Runtime): EntityWrites {
  const around = <T>(hooked: boolean, write: () => Promise<T>) => (hooked ? store.tx(write) : write());
  const remove = async (name: string, hooks: WriteHooks, row: Row) => {
    await hooks.beforeDelete?.(rt(), row);
    await store.repo(name).delete(row.id);
    await hooks.afterDelete?.(rt(), row);
  };
  const writeHooked = (hooks: WriteHooks) => Boolean(hooks.beforeWrite || hooks.afterWrite);
  const deleteHooked = (hooks: WriteHooks) => Boolean(hooks.beforeDelete || hooks.afterDelete);
  return {
    insert(name, values, opts) {
      const hooks = hooksOf(name);
      return around(writeHooked(hooks), async () => {
        const write: Write = { verb: 'create', values, now: opts.now };
        write.values = (await hooks.beforeWrite?.(rt(), write)) ?? write.values;
        const stored = { ...write.values, ...opts.stored };
        const id = await store.repo(name).insert(stored, { id: opts.id, now: opts.now, isSystem: opts.isSystem });
        await hooks.afterWrite?.(rt(), { ...write, id });
        return id;
      });
    },
    update(name, target, values, now, verb = 'patch') {
      const hooks = hooksOf(name);
      const id = typeof target === 'string' ? target : target.id;
      if (!writeHooked(hooks)) return store.repo(name).update(id, values, now);
      return store.tx(async () => {
        const existing = typeof target === 'string' ? await store.repo(name).get(target) : target;
        const write: Write = { verb, values, existing, now };
        write.values = (await hooks.beforeWrite?.(rt(), write)) ?? write.values;
        await store.repo(name).update(id, write.values, now);
        await hooks.afterWrite?.(rt(), { ...write, id });
      });
    },
    lockRow: (name, id, now) => store.repo(name).update(id, {}, now),
    delete(name, row) {
      const hooks = hooksOf(name);
      return around(deleteHooked(hooks), () => remove(name, hooks, row));
    },
    deleteWhere(name, where) {
      const hooks = hooksOf(name);
      if (!deleteHooked(hooks)) return store.repo(name).deleteWhere(where);
      return store.tx(async () => {
        const rows = await store.repo(name).findAll(where);
        for (const row of rows) await remove(name, hooks, row);
        return rows.length;
      });
    },
  };
}
