import type { ApiClient } from '../../client/types.js';
import { entityPath } from '../generic/resolve.js';
import { fileFields, fileKey } from './document.js';
import type { FileEntity } from './document.js';
import { KINDS } from './kinds.js';
import type { Kind } from './kinds.js';
import { mapNested } from './nested.js';
import type { Network } from './network.js';
import type { Change, Plan } from './plan.js';

/** Writes in flight at once: enough to hide round trips, few enough not to crowd the controller. */
const CONCURRENCY = 8;

export interface Outcome {
  done: Change[];
  failed: Array<{ change: Change; error: unknown }>;
  /** Not attempted: a kind before theirs failed, so what they name may be missing. */
  skipped: Change[];
}

/**
 * Sends the plan's creates and updates, kind by kind in dependency order, then its deletes in reverse order; the
 * writes of one kind together (at most CONCURRENCY at a time). After a kind with a failure it stops: later kinds
 * may name what failed. Running the same file again picks up where this stopped, since the plan is made from what
 * the controller then has.
 */
export async function applyPlan(api: ApiClient, plan: Plan, network: Network): Promise<Outcome> {
  const outcome: Outcome = { done: [], failed: [], skipped: [] };
  const of = (k: Kind, actions: readonly string[]) =>
    plan.changes.filter((c) => c.kind === k && actions.includes(c.action));
  const writes = (k: Kind) => of(k, ['create', 'update']);
  const deletes = (k: Kind) => of(k, ['delete']);
  const steps = [...KINDS.map(writes), ...[...KINDS].reverse().map(deletes)];
  for (const mine of steps) {
    if (outcome.failed.length > 0) {
      outcome.skipped.push(...mine);
      continue;
    }
    await eachLimited(mine, async (change) => {
      try {
        await write(api, change, network);
        outcome.done.push(change);
      } catch (error) {
        outcome.failed.push({ change, error });
      }
    });
  }
  return outcome;
}

async function write(api: ApiClient, change: Change, network: Network): Promise<void> {
  const { kind } = change;
  const entity = change.entity as FileEntity;
  const target = { api: kind.def.api };
  if (change.action === 'delete') {
    await api.delete(entityPath(kind.def, change.id), target);
    return;
  }
  if (change.action === 'create') {
    const body = { ...kind.createDefaults, ...toBody(kind, entity, Object.keys(entity), network) };
    const created = await api.post<{ id: string }>(entityPath(kind.def), body, target);
    change.id = created.id;
    const ids = network.ids.get(kind.def.name) ?? new Map<string, string>();
    ids.set(entity.name, created.id);
    network.ids.set(kind.def.name, ids);
    return;
  }
  await api.patch(entityPath(kind.def, change.id), toBody(kind, entity, Object.keys(change.fields), network), target);
}

/** The API body of the file's `keys` of an entity: API field names, names of other entities as their ids. */
function toBody(kind: Kind, entity: FileEntity, keys: readonly string[], network: Network) {
  const idOf = (resource: string, name: string) => network.ids.get(resource)?.get(name) ?? name;
  const byKey = new Map(fileFields(kind).map(([field, def]) => [fileKey(field, def), [field, def] as const]));
  const body: Record<string, unknown> = {};
  const named = mapNested(kind, entity, idOf);
  for (const key of keys) {
    const value = named[key];
    const known = byKey.get(key);
    if (!known) {
      body[key] = value; // tags
      continue;
    }
    const [field, def] = known;
    const type = def.type;
    if (type.kind === 'ref') body[field] = value === null ? null : idOf(type.resource, String(value));
    else if (type.kind === 'refList') body[field] = (value as string[]).map((n) => idOf(type.resource, n));
    else if (type.kind === 'roles') {
      body[field] = (value as string[]).map((r) => (r.startsWith('@') ? `@${idOf(type.resource, r.slice(1))}` : r));
    } else body[field] = value;
  }
  return body;
}

/** Runs `work` on every item, at most CONCURRENCY at a time. */
async function eachLimited<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}
