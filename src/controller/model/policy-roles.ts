import { resource, type ResourceDef } from '../../resources/index.js';
import type { ResourceModel } from './behaviour.js';
import type { Runtime } from '../runtime.js';
import type { Row } from '../store/repository.js';
import { toWire } from './present.js';

/** The role sets of a policy resource: field name -> the resource its `@id`s name. */
function roleSets(def: ResourceDef): [string, ResourceDef][] {
  return Object.entries(def.fields).flatMap(([name, f]) =>
    f.type.kind === 'roles' ? [[name, resource(f.type.resource)] as [string, ResourceDef]] : [],
  );
}

/**
 * Policies as served: each role set beside its display form (`identityRolesDisplay`), where `@id` reads as
 * `@name` (one lookup per role set for the whole page) and `#attribute` as itself, as OpenZiti shows them.
 * An id whose entity is gone reads `@UNKNOWN`; deleting an entity removes it from role sets, so that is a race only.
 */
async function presentPolicies(def: ResourceDef, rows: Row[], rt: Runtime): Promise<Record<string, unknown>[]> {
  const out = rows.map((row) => toWire(def, row));
  for (const [field, target] of roleSets(def)) {
    const ids = [
      ...new Set(
        rows.flatMap((row) =>
          ((row[field] as string[] | null) ?? []).filter((r) => r.startsWith('@')).map((r) => r.slice(1)),
        ),
      ),
    ];
    const names = new Map<string, string>();
    if (ids.length)
      for (const e of await rt.store.repoFor(target).findAll({ id: ids }, { columns: ['name'] }))
        names.set(e.id, e.name as string);
    rows.forEach((row, i) => {
      const roles = (row[field] as string[] | null) ?? [];
      out[i][`${field}Display`] = roles.map((role) => ({
        role,
        name: role.startsWith('@') ? `@${names.get(role.slice(1)) ?? 'UNKNOWN'}` : role,
      }));
    });
  }
  return out;
}

/** The model of a policy resource: its role sets presented with names. */
export function policyModel(name: string): ResourceModel {
  const def = resource(name);
  return { resource: name, present: (rows, rt) => presentPolicies(def, rows, rt) };
}
