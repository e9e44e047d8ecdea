import { UsageError } from '../../console/errors.js';
import type { FieldDef } from '../../resources/types.js';
import { fileFields, fileKey } from './document.js';
import { KINDS } from './kinds.js';
import type { Kind } from './kinds.js';
import { nestedNames } from './nested.js';
import { type Network, rowsOfKind } from './network.js';
import { type Change, namesIn, type Plan } from './plan.js';

/** A field of a kind that names entities of another resource, and whether the controller refuses their delete. */
export interface HoldingField {
  /** Its name in the API (`authPolicyId`), and in the file (`authPolicy`). */
  field: string;
  key: string;
  def: FieldDef;
  resource: string;
  /** A delete of what it names is refused (a reference that neither clears nor is a role). */
  refuses: boolean;
}

export function holdingFields(kind: Kind): HoldingField[] {
  return fileFields(kind).flatMap(([field, def]) => {
    const type = def.type;
    if (type.kind !== 'ref' && type.kind !== 'refList' && type.kind !== 'roles') return [];
    // A deleted entity's @id leaves every role set and a clearing reference; any other reference refuses the delete.
    const refuses = type.kind !== 'roles' && type.onDelete !== 'clear';
    return [{ field, key: fileKey(field, def), def, resource: type.resource, refuses }];
  });
}

/**
 * The kinds that can name entities of these resources, nested references included: what must be read to find what
 * names an entity that is replaced (roles too: they are re-pointed) or, `refusingOnly`, what holds one back from a
 * delete. replace.ts re-points no nested reference: only signers are named so, and no field of a signer is fixed
 * after create, so none is ever replaced.
 */
export function holderKinds(resources: ReadonlySet<string>, { refusingOnly = false } = {}): Kind[] {
  return KINDS.filter(
    (k) =>
      holdingFields(k).some((f) => resources.has(f.resource) && (f.refuses || !refusingOnly)) ||
      (k.nestedRefs ?? []).some((r) => resources.has(r.resource)),
  );
}

/** Where a row of `kind`, as served, names entities by id in a way that refuses their delete, by the file's key. */
function refusingReferences(kind: Kind, fields: readonly HoldingField[], row: Record<string, unknown>) {
  const named = fields.map(({ field, key, def, resource }) => ({ key, resource, ids: namesIn(def, row[field]) }));
  // A nested reference refuses too: the controller keeps a signer an auth policy allows or requires.
  const nested = nestedNames(kind, row).map(({ at, resource, name }) => ({ key: at, resource, ids: [name] }));
  return [...named, ...nested];
}

/**
 * Refuses a plan whose --prune deletes what an entity the run keeps names by a reference the controller refuses the
 * delete over, as the controller has it: a kept identity's auth policy, a config's type, a signer's enrollment
 * policy, an auth policy's allowed signers, the controller's own rows (the default auth policy, routers' identities)
 * included. The controller would refuse that delete after the run had written everything before it. What the file
 * itself names is refused before this (plan.ts); `network` must hold the rows of every kind that can name what is
 * deleted (holderKinds). Not read, so not checked: an identity's service configs (listed per identity only), which
 * the controller then refuses to let go of a config with a 409 naming them.
 */
export function refuseHeldDeletes(plan: Plan, network: Network): void {
  const deleted = new Map<string, Change>();
  for (const c of plan.changes) if (c.action === 'delete') deleted.set(`${c.kind.def.name}/${c.id}`, c);
  if (deleted.size === 0) return;
  const changesOf = new Map<string, Change[]>();
  for (const c of plan.changes) {
    const key = `${c.kind.key}/${c.name}`;
    changesOf.set(key, [...(changesOf.get(key) ?? []), c]);
  }
  for (const kind of KINDS) {
    const refusing = holdingFields(kind).filter((f) => f.refuses);
    for (const row of rowsOfKind(kind, network.rows)) {
      const own = changesOf.get(`${kind.key}/${String(row.name)}`) ?? [];
      if (own.some((c) => c.action === 'delete')) continue;
      // The controller deletes it with what it was made for (a router's identity with the router), first.
      const owner = kind.madeFor?.(row);
      if (owner && deleted.has(`${owner.resource}/${owner.id}`)) continue;
      for (const { key, resource, ids } of refusingReferences(kind, refusing, row)) {
        // An update of the field (or of the object holding a nested one) goes before every delete.
        if (own.some((c) => key.split('.')[0] in c.fields)) continue;
        const target = ids.map((id) => deleted.get(`${resource}/${id}`)).find((c) => c !== undefined);
        if (target) throw heldError(kind, row, key, target);
      }
    }
  }
}

function heldError(kind: Kind, row: Record<string, unknown>, key: string, target: Change): UsageError {
  const holder = `${kind.def.label} "${String(row.name)}"`;
  const deleted = `${target.kind.def.label} "${target.name}"`;
  return new UsageError(`${holder}: ${key} names ${deleted}, which --prune deletes`, [
    `the controller refuses to delete it while it is named: change the ${key} of the ${kind.def.label} first ` +
      `(in the file, where it declares it), or declare ${deleted} in it`,
  ]);
}
