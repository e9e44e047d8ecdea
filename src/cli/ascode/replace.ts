import type { FileEntity } from './document.js';
import { type HoldingField, holdingFields } from './held.js';
import { KINDS } from './kinds.js';
import type { Kind } from './kinds.js';
import type { Network } from './network.js';
import { type Change, namesIn, type Plan, turnOf } from './plan.js';

/** An entity on the controller that names a replaced one in `field`. */
interface Holder {
  kind: Kind;
  entity: FileEntity;
  id?: string;
  field: HoldingField;
}

/** What names the entity of `change` on the controller, of the kinds the network was read for. */
function holdersOf(change: Change, network: Network): Holder[] {
  return KINDS.flatMap((kind) =>
    holdingFields(kind)
      .filter((field) => field.resource === change.kind.def.name)
      .flatMap((field) =>
        (network.document[kind.key] ?? [])
          .filter((entity) => namesIn(field.def, entity[field.key]).includes(change.name))
          .map((entity) => ({ kind, entity, id: network.ids.get(kind.def.name)?.get(entity.name), field })),
      ),
  );
}

const keyOf = (kind: Kind, name: string) => `${kind.key}/${name}`;

/**
 * With --replace: each conflict becomes a replace (deleted, then created from the file's fields over what the
 * controller has), unless something that is not replaced too holds it by a reference that refuses the delete; that
 * stays a conflict, its reason naming what holds it. What holds a replaced entity by a role or a clearing reference
 * and is not written from the file anyway gets a repoint: that field written again, by name, once the entity is new.
 * `network` must have been read for the holder kinds of the conflicting kinds.
 */
export function planReplacements(plan: Plan, network: Network): Plan {
  const byEntity = new Map(plan.changes.map((c) => [keyOf(c.kind, c.name), c]));
  const holders = new Map(plan.changes.filter((c) => c.action === 'conflict').map((c) => [c, holdersOf(c, network)]));
  const blocked = blockedConflicts(holders, byEntity);
  const replaces = new Map<Change, Change>();
  for (const [conflict] of holders) {
    if (blocked.has(conflict)) continue;
    const previous = (network.document[conflict.kind.key] ?? []).find((e) => e.name === conflict.name) as FileEntity;
    const entity = { ...previous, ...(conflict.entity as FileEntity) };
    replaces.set(conflict, { ...conflict, action: 'replace', entity, previous, deleteAt: conflict.kind });
  }
  orderDeletes(replaces, holders, byEntity);
  const repoints = repointsOf(replaces, holders, byEntity);
  const changed = (c: Change) => replaces.get(c) ?? withBlock(c, blocked.get(c));
  const kept = plan.changes.filter((c) => c.action !== 'delete').map(changed);
  const ordered = KINDS.flatMap((k) => [
    ...kept.filter((c) => turnOf(c) === k),
    ...repoints.filter((r) => r.replaced?.[0].kind === k),
  ]);
  return { changes: [...ordered, ...plan.changes.filter((c) => c.action === 'delete')] };
}

/**
 * The conflicts that cannot be replaced: held by a refusing reference of something not replaced itself. A blocked
 * holder blocks what it holds in turn, so this runs until nothing more is blocked.
 */
function blockedConflicts(holders: Map<Change, Holder[]>, byEntity: Map<string, Change>): Map<Change, Holder[]> {
  const blocked = new Map<Change, Holder[]>();
  const isReplaced = (h: Holder) => {
    const change = byEntity.get(keyOf(h.kind, h.entity.name));
    return change !== undefined && holders.has(change) && !blocked.has(change);
  };
  for (let more = true; more; ) {
    more = false;
    for (const [conflict, list] of holders) {
      const stuck = list.filter((h) => h.field.refuses && !isReplaced(h));
      if (blocked.has(conflict) || stuck.length === 0) continue;
      blocked.set(conflict, stuck);
      more = true;
    }
  }
  return blocked;
}

function withBlock(change: Change, stuck: Holder[] | undefined): Change {
  if (stuck === undefined) return change;
  const what = stuck.map((h) => `${h.kind.def.label} "${h.entity.name}" (${h.field.key})`).join(', ');
  return { ...change, reason: `${change.reason}; held by ${what}, which refuses its delete` };
}

/**
 * A replaced entity held by a refusing reference of another replaced one is deleted in the turn of what it holds,
 * before it, rather than in its own turn: a config whose config type is replaced goes before the type.
 */
function orderDeletes(replaces: Map<Change, Change>, holders: Map<Change, Holder[]>, byEntity: Map<string, Change>) {
  const earlier = (a: Kind, b: Kind) => (KINDS.indexOf(a) <= KINDS.indexOf(b) ? a : b);
  for (const [conflict, replace] of replaces) {
    for (const h of holders.get(conflict) ?? []) {
      const holder = replaces.get(byEntity.get(keyOf(h.kind, h.entity.name)) as Change);
      if (h.field.refuses && holder) holder.deleteAt = earlier(holder.deleteAt as Kind, replace.deleteAt as Kind);
    }
  }
}

/**
 * One repoint per holder and replaced kind, for the holders whose field is not written from the file anyway: not
 * replaced, not deleted by --prune, and not updated in that field.
 */
function repointsOf(replaces: Map<Change, Change>, holders: Map<Change, Holder[]>, byEntity: Map<string, Change>) {
  const repoints = new Map<string, Change>();
  for (const [conflict, replace] of replaces) {
    for (const h of holders.get(conflict) ?? []) {
      const own = byEntity.get(keyOf(h.kind, h.entity.name));
      const written = own !== undefined && (replaces.has(own) || own.action === 'delete' || h.field.key in own.fields);
      if (h.field.refuses || written) continue;
      const key = `${keyOf(h.kind, h.entity.name)}/${replace.kind.key}`;
      const repoint = repoints.get(key) ?? {
        action: 'repoint',
        kind: h.kind,
        name: h.entity.name,
        fields: {},
        entity: h.entity,
        id: h.id,
        repoint: {},
        replaced: [],
      };
      const names = repoint.repoint as Record<string, string[]>;
      names[h.field.key] = [...(names[h.field.key] ?? []), replace.name];
      if (!repoint.replaced?.includes(replace)) repoint.replaced?.push(replace);
      repoints.set(key, repoint);
    }
  }
  return [...repoints.values()];
}
