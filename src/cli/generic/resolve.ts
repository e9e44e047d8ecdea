import type { ApiClient } from '../../client/types.js';
import { ApiError } from '../../protocol/errors.js';
import { resource } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';
import { CliError, NotFoundError, UsageError } from '../../console/errors.js';
import { flagName } from './fields.js';
import type { FieldInput, PendingList, PendingRef } from './fields.js';

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
  const page = await api.list<Entity>(
    entityPath(def),
    { filter: `name = ${quote(ref)}`, limit: AMBIGUITY_SHOWN },
    { api: def.api },
  );
  const [first, ...others] = page.data;
  if (first === undefined) throw new NotFoundError(`no ${def.label} named or with id "${ref}"`);
  if (others.length > 0) {
    throw new UsageError(
      `"${ref}" names ${page.meta.pagination.totalCount} ${def.plural}: give the id of the one you mean`,
      page.data.map((e) => `${e.id}  ${String(e.name)}`),
    );
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
  refs: readonly PendingRef[],
  owner?: ResourceDef,
): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const ref of refs)
    ids[ref.field] = await naming(ref.flag ?? flagOf(owner, ref.field), () =>
      resolveId(api, resource(ref.resource), ref.value),
    );
  return ids;
}

/**
 * Everything of a parsed input that names other entities, as the API takes it: references and reference lists as
 * ids, roles with `@name` as `@id` (`#attribute` and `#all` as given). Each name is looked up like any other (exact
 * id first, then exact name); a failure names the flag it came from.
 */
export async function resolveInput(
  api: ApiClient,
  input: FieldInput,
  owner?: ResourceDef,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = await resolveRefs(api, input.refs, owner);
  for (const list of input.refLists ?? []) {
    const def = resource(list.resource);
    out[list.field] = await each(list, (value) => resolveId(api, def, value));
  }
  for (const roles of input.roles ?? []) out[roles.field] = await resolveRoles(api, roles);
  return out;
}

/** `@name-or-id` → `@id`; `#attribute` and `#all` pass through (the controller matches them itself). */
export async function resolveRoles(api: ApiClient, roles: PendingList): Promise<string[]> {
  const def = resource(roles.resource);
  return each(roles, async (role) => (role.startsWith('@') ? `@${await resolveId(api, def, role.slice(1))}` : role));
}

async function each(list: PendingList, resolve: (value: string) => Promise<string>): Promise<string[]> {
  const out: string[] = [];
  for (const value of list.values) out.push(await naming(list.flag, () => resolve(value)));
  return [...new Set(out)];
}

/** The flag a field of `owner` is set with, for messages. */
function flagOf(owner: ResourceDef | undefined, field: string): string | undefined {
  const f = owner?.fields[field];
  return owner && f ? `--${flagName(owner, field, f.type)}` : undefined;
}

/** Runs a lookup; an error of ours it ends with is prefixed with the flag the value came from. */
async function naming<T>(flag: string | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (flag === undefined || !(err instanceof CliError)) throw err;
    const named = new CliError(`${flag}: ${err.message}`, err.exitCode, err.details);
    named.name = err.name;
    throw named;
  }
}
