import { fileField } from './document.js';
import { KINDS } from './kinds.js';
import type { Kind } from './kinds.js';
import type { Network } from './network.js';
import { type Change, type Plan, turnOf } from './plan.js';

/**
 * The order's one cycle, broken as the plan says: a signer names its enrollment auth policy, which comes after it
 * in the order, and an auth policy names signers. A kind's forward reference (kinds.ts) is written by an update in
 * the turn of the kind it names when what it names is created or updated in the same run: a new signer is created
 * without it (and without the enrollments it turns on, which the controller checks against it), then given them
 * once the policy exists as the file says. Before --prune deletes what a deleted entity's forward reference names,
 * that reference is cleared.
 */

/** The kind a forward reference names. */
function namedKind(kind: Kind, key: string): Kind {
  const field = fileField(kind, key)?.[1];
  const resource = field?.type.kind === 'ref' ? field.type.resource : undefined;
  const named = KINDS.find((k) => k.def.name === resource);
  if (!named) throw new Error(`${kind.key}: forward reference ${key} names no kind`);
  return named;
}

const entityKey = (kind: Kind, name: string) => `${kind.key}/${name}`;

/** What the entity's forward reference names: as the file states it, else as the controller has it. */
function forwardTarget(change: Change, network: Network): { kind: Kind; name: string } | undefined {
  const ref = change.kind.forwardRef;
  if (!ref) return undefined;
  const current = network.document[change.kind.key]?.find((e) => e.name === change.name)?.[ref.key];
  const name = change.entity?.[ref.key] !== undefined ? change.entity[ref.key] : current;
  return typeof name === 'string' ? { kind: namedKind(change.kind, ref.key), name } : undefined;
}

function pick<T>(record: Record<string, T>, keys: readonly string[]): Record<string, T> {
  return Object.fromEntries(keys.map((k) => [k, record[k]]));
}

function omit<T>(record: Record<string, T>, keys: readonly string[]): Record<string, T> {
  return Object.fromEntries(Object.entries(record).filter(([k]) => !keys.includes(k)));
}

/**
 * The plan's creates and updates (in dependency order) with each forward reference to what the run also writes
 * moved to an update after it: a create is split in two, an update moved whole. Ordered by the turn each is
 * written in.
 */
function deferForwardRefs(changes: readonly Change[], network: Network): Change[] {
  const written = new Set(
    changes.filter((c) => c.action === 'create' || c.action === 'update').map((c) => entityKey(c.kind, c.name)),
  );
  const now: Change[] = [];
  const later: Change[] = [];
  for (const change of changes) {
    const ahead = change.action === 'create' || change.action === 'update' ? forwardTarget(change, network) : undefined;
    const ref = change.kind.forwardRef;
    const on = ref?.with.filter((k) => change.entity?.[k] === true) ?? [];
    const keys = ref ? [ref.key, ...on].filter((k) => k in change.fields) : [];
    if (ahead === undefined || !written.has(entityKey(ahead.kind, ahead.name)) || keys.length === 0) {
      now.push(change);
      continue;
    }
    const reason = `after ${ahead.kind.def.label} "${ahead.name}" is written`;
    if (change.action === 'update') {
      later.push({ ...change, after: ahead.kind, reason });
      continue;
    }
    const entity = change.entity as Record<string, unknown>;
    const create = { ...change, entity: omit(entity, keys) as typeof change.entity, fields: omit(change.fields, keys) };
    now.push({ ...create, reason: `${keys.join(', ')} by an update ${reason}` });
    later.push({
      action: 'update',
      kind: change.kind,
      name: change.name,
      fields: pick(change.fields, keys),
      entity: { name: change.name, ...pick(entity, keys) },
      after: ahead.kind,
      reason,
    });
  }
  // In each kind's turn, its own changes, then those that waited for it.
  const inTurns = [...now, ...later];
  return KINDS.flatMap((k) => inTurns.filter((c) => turnOf(c) === k));
}

/**
 * The updates that clear, before --prune deletes, the forward reference of a deleted entity to another deleted one:
 * the controller refuses to delete an auth policy a signer names, and the signer is named by the policy.
 */
function clearingsFor(deletes: readonly Change[], network: Network): Change[] {
  const deleted = new Set(deletes.map((c) => entityKey(c.kind, c.name)));
  return deletes.flatMap((change): Change[] => {
    const ref = change.kind.forwardRef;
    const named = ref && network.document[change.kind.key]?.find((e) => e.name === change.name)?.[ref.key];
    if (!ref || typeof named !== 'string') return [];
    const kind = namedKind(change.kind, ref.key);
    if (!deleted.has(entityKey(kind, named))) return [];
    return [
      {
        action: 'update',
        kind: change.kind,
        name: change.name,
        fields: { [ref.key]: { from: named, to: null } },
        entity: { name: change.name, [ref.key]: null },
        id: change.id,
        reason: `so that ${kind.def.label} "${named}" can be deleted`,
      },
    ];
  });
}

/**
 * The plan with its forward references broken: deferred where the run writes what they name, cleared for --prune
 * where what holds them is deleted too (held.ts refuses the delete where it is kept).
 */
export function breakCycle(plan: Plan, network: Network): Plan {
  const deletes = plan.changes.filter((c) => c.action === 'delete');
  const rest = plan.changes.filter((c) => c.action !== 'delete');
  return { changes: [...deferForwardRefs(rest, network), ...clearingsFor(deletes, network), ...deletes] };
}
