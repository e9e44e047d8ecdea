import type { ApiClient } from '../../client/types.js';
import { MAX_LIMIT } from '../../protocol/paging.js';
import { resource } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';
import { entityPath, quote } from './resolve.js';
import { columnsOf } from './words.js';

/**
 * Table rows as a person reads them, with names where the controller serves ids:
 * - a policy's role set (`@<id>`, `#attr`) in the display form served beside it (`identityRolesDisplay`: `@laptop-7`);
 * - a reference served as a bare id, with no entity reference beside it (a service session's `identityId`:
 *   OpenZiti serves no `identity` there), as the referenced entity's name, looked up in one list query per page
 *   of ids. An id no longer found (deleted meanwhile) stays as it is.
 * Only the columns of the resource's table are touched. Machine formats print what was served and never come here.
 */
export async function readableRows(api: ApiClient, def: ResourceDef, rows: readonly unknown[]): Promise<unknown[]> {
  const readable = rows.map((row) => ({ ...(row as Record<string, unknown>) }));
  for (const { field } of columnsOf(def)) {
    const type = def.fields[field]?.type;
    if (type?.kind === 'roles') {
      for (const row of readable) row[field] = displayedRoles(row, field) ?? row[field];
    } else if (type?.kind === 'ref' && type.as === undefined && 'name' in resource(type.resource).fields) {
      const ids = new Set(readable.map((row) => row[field]).filter((id): id is string => typeof id === 'string'));
      const names = await namesOf(api, resource(type.resource), [...ids]);
      for (const row of readable) row[field] = names.get(row[field] as string) ?? row[field];
    }
  }
  return readable;
}

/** A role set in its display form (`@laptop-7`, `#sales`), when the controller served one beside it. */
export function displayedRoles(entity: Record<string, unknown>, field: string): string[] | undefined {
  const display = entity[`${field}Display`] as Array<{ name: string }> | undefined;
  return display?.map((role) => role.name);
}

async function namesOf(api: ApiClient, def: ResourceDef, ids: readonly string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (let i = 0; i < ids.length; i += MAX_LIMIT) {
    const filter = `id in [${ids
      .slice(i, i + MAX_LIMIT)
      .map(quote)
      .join(', ')}]`;
    const query = { filter, limit: MAX_LIMIT };
    const page = await api.list<{ id: string; name: string }>(entityPath(def), query, { api: def.api });
    for (const entity of page.data) names.set(entity.id, entity.name);
  }
  return names;
}
