import type { ApiClient } from '../../client/types.js';
import { ApiError } from '../../protocol/errors.js';
import { resource } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';
import { NotFoundError, UsageError } from '../../console/errors.js';

export type Entity = Record<string, unknown> & { id: string };

/** How many same-named matches are listed when a name is ambiguous. */
const AMBIGUITY_SHOWN = 10;

export function entityPath(def: ResourceDef, id?: string): string {
  return id === undefined ? `/${def.plural}` : `/${def.plural}/${encodeURIComponent(id)}`;
}

/** The controller answered 404, or a name matched nothing. */
export function isNotFound(err: unknown): boolean {
  return err instanceof NotFoundError || (err instanceof ApiError && (err.code === 'NOT_FOUND' || err.status === 404));
}

/** A ZitiQL string literal. */
export function quote(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * Finds the entity a user means by `ref`, the one rule for every command that takes a name or an id: an exact id
 * first, then an exact name. Several entities with that name is an error listing them, never a guess.
 */
async function find(api: ApiClient, def: ResourceDef, ref: string): Promise<{ entity: Entity; viaName: boolean }> {
  if (ref.trim() === '') throw new UsageError(`an empty ${def.label} name or id`);
  try {
    return { entity: await api.get<Entity>(entityPath(def, ref), { api: def.api }), viaName: false };
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  if (!('name' in def.fields)) throw new NotFoundError(`no ${def.label} with id "${ref}"`);
  const page = await api.list<Entity>(entityPath(def), { filter: `name = ${quote(ref)}`, limit: AMBIGUITY_SHOWN }, { api: def.api });
  const [first, ...others] = page.data;
  if (first === undefined) throw new NotFoundError(`no ${def.label} named or with id "${ref}"`);
  if (others.length > 0) {
    throw new UsageError(`"${ref}" names ${page.meta.pagination.totalCount} ${def.plural}: give the id of the one you mean`, page.data.map((e) => `${e.id}  ${String(e.name)}`));
  }
  return { entity: first, viaName: true };
}

/** The entity as found: its detail when `ref` was an id, its list row when it was a name. */
export async function lookup(api: ApiClient, def: ResourceDef, ref: string): Promise<Entity> {
  return (await find(api, def, ref)).entity;
}

export async function resolveId(api: ApiClient, def: ResourceDef, ref: string): Promise<string> {
  return (await lookup(api, def, ref)).id;
}

/** The full detail of the entity (a list row may carry less than `GET /{plural}/{id}`). */
export async function fetchEntity(api: ApiClient, def: ResourceDef, ref: string): Promise<Entity> {
  const { entity, viaName } = await find(api, def, ref);
  return viaName ? api.get<Entity>(entityPath(def, entity.id), { api: def.api }) : entity;
}

/** Resolves reference flags (`--auth-policy NAME`) to the ids the API expects, keyed by field. */
export async function resolveRefs(
  api: ApiClient,
  refs: ReadonlyArray<{ field: string; resource: string; value: string }>,
): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const ref of refs) ids[ref.field] = await resolveId(api, resource(ref.resource), ref.value);
  return ids;
}
