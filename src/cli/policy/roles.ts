// Role sets as typed on the command line: comma-separated or repeated, `#attribute`, `@name-or-id`, `#all`.
// The controller matches `@id` only, so names become ids here (wire-protocol section 4).
import type { ApiClient } from '../../client/types.js';
import type { ResourceDef } from '../../resources/types.js';
import { UsageError } from '../../console/errors.js';
import { resolveId } from '../generic/resolve.js';

/** Commander collector: `--identities '#a,#b' --identities @c` gives ['#a', '#b', '@c']. */
export function roleList(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(',').map((v) => v.trim()).filter((v) => v !== '')];
}

/** Checks the shape of a role set; `flag` names it in errors. */
export function checkRoles(flag: string, roles: readonly string[]): void {
  for (const role of roles) {
    if (!/^[#@]./.test(role)) {
      throw new UsageError(`--${flag}: '${role}' is neither a role attribute (#attribute) nor an entity (@name or @id)`, [
        `did you mean '#${role}' (every entity with that attribute) or '@${role}' (the entity of that name)?`,
      ]);
    }
  }
  if (roles.includes('#all') && roles.length > 1) throw new UsageError(`--${flag}: #all selects everything and must stand alone`);
}

/** The role set as the controller takes it: `@name` resolved to `@id`. */
export async function resolveRoles(api: ApiClient, target: ResourceDef, flag: string, roles: readonly string[]): Promise<string[]> {
  checkRoles(flag, roles);
  return Promise.all(roles.map(async (role) => (role.startsWith('@') ? `@${await resolveId(api, target, role.slice(1))}` : role)));
}
