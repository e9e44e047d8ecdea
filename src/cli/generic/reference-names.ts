import type { ApiClient } from '../../client/types.js';
import { MAX_LIMIT } from '../../protocol/paging.js';
import { resource } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';
import { entityPath, quote } from './resolve.js';
import { columnsOf } from './words.js';

/**
 * Table rows whose columns name other entities by name where the controller serves only their id: a column on a
 * reference field without an entity reference beside it (a service session's `identityId`: OpenZiti serves no
 * `identity` there) shows the referenced entity's name, looked up in one list query per page of ids. An id that
 * is no longer found (deleted meanwhile) stays as it is. Machine formats are not changed: they print what was served.
 */
export async function withReferenceNames(
  api: ApiClient,
  def: ResourceDef,
  rows: readonly unknown[],
): Promise<unknown[]> {
  const lookups = columnsOf(def).flatMap(({ field }) => {
    const type = def.fields[field]?.type;
    if (type?.kind !== 'ref' || type.as !== undefined) return [];
    const target = resource(type.resource);
    return 'name' in target.fields ? [{ field, target }] : [];
  });
  if (lookups.length === 0 || rows.length === 0) return [...rows];
  const named = rows.map((row) => ({ ...(row as Record<string, unknown>) }));
  for (const { field, target } of lookups) {
    const ids = [...new Set(named.map((row) => row[field]).filter((id): id is string => typeof id === 'string'))];
    const names = await namesOf(api, target, ids);
    for (const row of named) {
      const name = names.get(row[field] as string);
      if (name !== undefined) row[field] = name;
    }
  }
  return named;
}

async function namesOf(api: ApiClient, def: ResourceDef, ids: readonly string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (let i = 0; i < ids.length; i += MAX_LIMIT) {
    const chunk = ids.slice(i, i + MAX_LIMIT);
    const filter = `id in [${chunk.map(quote).join(', ')}]`;
    const query = { filter, limit: MAX_LIMIT };
    const page = await api.list<{ id: string; name: string }>(entityPath(def), query, { api: def.api });
    for (const entity of page.data) names.set(entity.id, entity.name);
  }
  return names;
}
