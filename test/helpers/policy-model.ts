/**
 * An independent, deliberately naive evaluator of OpenZiti's policy rules (wire-protocol section 4), written from
 * the rules and nothing of the controller: every question is answered by looking at every policy and every entity.
 * Property tests compare the controller's access index with it on random networks.
 */
export interface Entity {
  id: string;
  attributes: string[];
}

export interface Policy {
  id: string;
  semantic: 'AllOf' | 'AnyOf';
  type?: 'Dial' | 'Bind';
  roles: Record<string, string[]>;
}

/** Whether a role set selects the entity: `@id`, `#all`, or its `#attributes` (all of them, or any one). */
export function selects(roles: readonly string[], semantic: Policy['semantic'], entity: Entity): boolean {
  if (roles.includes(`@${entity.id}`) || roles.includes('#all')) return true;
  const attributes = roles.filter((r) => r.startsWith('#')).map((r) => r.slice(1));
  if (attributes.length === 0) return false;
  return semantic === 'AnyOf'
    ? attributes.some((a) => entity.attributes.includes(a))
    : attributes.every((a) => entity.attributes.includes(a));
}

/**
 * Entities of `to` reachable from `entity` through any policy selecting it on `from` (and, optionally, of one type).
 */
export function reachable(
  policies: readonly Policy[],
  from: string,
  to: string,
  entity: Entity,
  targets: readonly Entity[],
  type?: Policy['type'],
): string[] {
  const granting = policies.filter(
    (p) => (type === undefined || p.type === type) && selects(p.roles[from], p.semantic, entity),
  );
  return targets
    .filter((t) => granting.some((p) => selects(p.roles[to], p.semantic, t)))
    .map((t) => t.id)
    .sort();
}

/** Policies that select the entity on `field`. */
export function selecting(policies: readonly Policy[], field: string, entity: Entity): string[] {
  return policies
    .filter((p) => selects(p.roles[field], p.semantic, entity))
    .map((p) => p.id)
    .sort();
}
