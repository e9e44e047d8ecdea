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
  /** Replaces whose old entity was deleted: one neither done nor restored was deleted and not created again. */
  removed: Change[];
  /** Replaces whose create was refused, their old entity created again as it was (with a new id). */
  restored: Change[];
}

/** One step of a run: changes written together, and whether their work completes them. */
interface Step {
  changes: Change[];
  work: (change: Change) => Promise<void>;
  /** False for the early delete of a replace: it is done once created again. */
  completes: boolean;
  /** A repoint runs even after a failure, once what it names is new: a later run cannot find what to re-point. */
  repoints?: boolean;
}

/**
 * Sends the plan kind by kind in dependency order, then the deletes of --prune in reverse order; the writes of one
 * kind together (at most CONCURRENCY at a time). In a kind's turn: the replaced entities that hold one of its
 * replaced ones by a refusing reference are deleted; its creates, updates and replaces (delete, then create) are
 * sent; then the updates of forward references to it (forward.ts); then what named its replaced entities by id is
 * re-pointed to the new ones. A replace whose create is refused creates the old entity again as it was, and what
 * held it is re-pointed to that: a later run finds the conflict again rather than an entity whose holders it
 * cannot know. After a kind with a failure it stops, but for those repoints: later kinds may name what failed.
 * Running the same file again picks up where this stopped, since the plan is made from what the controller then
 * has.
 */
export async function applyPlan(api: ApiClient, plan: Plan, network: Network): Promise<Outcome> {
  const outcome: Outcome = { done: [], failed: [], skipped: [], removed: [], restored: [] };
  const removeOld = async (change: Change) => {
    await remove(api, change);
    if (change.action === 'replace') outcome.removed.push(change);
  };
  const restore = async (change: Change) => {
    try {
      change.id = await create(api, change.kind, change.previous as FileEntity, network);
      outcome.restored.push(change);
    } catch {
      // Left deleted: the outcome lists it, and the repoints that now cannot be made.
    }
  };
  const send = async (change: Change) => {
    if (change.action !== 'replace') return write(api, change, network);
    if (change.deleteAt === change.kind) await removeOld(change);
    try {
      await write(api, change, network);
    } catch (error) {
      await restore(change);
      throw error;
    }
  };
  const isNew = (c: Change) => outcome.done.includes(c) || outcome.restored.includes(c);
  for (const step of steps(plan, removeOld, send)) {
    const ready = (c: Change) => step.repoints === true && (c.replaced ?? []).every(isNew);
    const stopped = outcome.failed.length > 0;
    if (stopped) outcome.skipped.push(...step.changes.filter((c) => !ready(c)));
    const now = stopped ? step.changes.filter(ready) : step.changes;
    await eachLimited(now, async (change) => {
      try {
        await step.work(change);
        if (step.completes) outcome.done.push(change);
      } catch (error) {
        outcome.failed.push({ change, error });
      }
    });
  }
  return outcome;
}

function steps(plan: Plan, removeOld: Step['work'], send: Step['work']): Step[] {
  const where = (test: (c: Change) => boolean) => plan.changes.filter(test);
  const reversed = [...KINDS].reverse();
  const earlyDeletes = (kind: Kind, k: Kind): Step => ({
    changes: where((c) => c.action === 'replace' && c.deleteAt === kind && c.kind === k && k !== kind),
    work: removeOld,
    completes: false,
  });
  const turn = (kind: Kind): Step[] => [
    ...reversed.map((k) => earlyDeletes(kind, k)),
    { changes: where((c) => c.kind === kind && !c.after && WRITES.includes(c.action)), work: send, completes: true },
    { changes: where((c) => c.after === kind), work: send, completes: true },
    { changes: where((c) => c.replaced?.[0].kind === kind), work: send, completes: true, repoints: true },
  ];
  const prune = (k: Kind): Step => ({
    changes: where((c) => c.kind === k && c.action === 'delete'),
    work: removeOld,
    completes: true,
  });
  return [...KINDS.flatMap(turn), ...reversed.map(prune)].filter((s) => s.changes.length > 0);
}

const WRITES: readonly string[] = ['create', 'update', 'replace'];

async function remove(api: ApiClient, change: Change): Promise<void> {
  await api.delete(entityPath(change.kind.def, change.id), { api: change.kind.def.api });
}

/** A create, an update, the create of a replace (its id then the new one), or a repoint. */
async function write(api: ApiClient, change: Change, network: Network): Promise<void> {
  const { kind } = change;
  const entity = change.entity as FileEntity;
  const target = { api: kind.def.api };
  if (change.action === 'create' || change.action === 'replace') {
    change.id = await create(api, kind, entity, network);
    return;
  }
  const keys = Object.keys(change.repoint ?? change.fields);
  // The update that follows a create in the same run (forward.ts) knows its entity's id only now.
  const id = change.id ?? network.ids.get(kind.def.name)?.get(change.name);
  await api.patch(entityPath(kind.def, id), toBody(kind, entity, keys, network), target);
}

/** Creates `entity`, and from then on writes its name as its new id. */
async function create(api: ApiClient, kind: Kind, entity: FileEntity, network: Network): Promise<string> {
  const body = { ...kind.createDefaults, ...toBody(kind, entity, Object.keys(entity), network) };
  const created = await api.post<{ id: string }>(entityPath(kind.def), body, { api: kind.def.api });
  const ids = network.ids.get(kind.def.name) ?? new Map<string, string>();
  ids.set(entity.name, created.id);
  network.ids.set(kind.def.name, ids);
  return created.id;
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
