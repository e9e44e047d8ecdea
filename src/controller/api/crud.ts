import { ApiError, invalidField } from '../../protocol/errors.js';
import { CATALOGUE, resource, type ResourceDef } from '../../resources/index.js';
import type { Services } from '../services.js';
import type { Verb } from '../server/schemas.js';
import type { Ctx, Route } from '../server/types.js';
import type { Page, Row } from '../store/repository.js';
import { links } from './present.js';
import { listParams } from './query.js';

/**
 * The standard group (list, get, create, replace, patch, delete), relation sub-lists and role-attribute lists of
 * every catalogue resource, derived from its entry. A handler module that registers a route first takes it over.
 */
export function crudRoutes(services: Services, taken: (route: Pick<Route, 'method' | 'path' | 'api'>) => boolean): Route[] {
  const routes: Route[] = [];
  const add = (route: Route) => {
    if (!taken(route)) routes.push(route);
  };
  for (const def of CATALOGUE) {
    const base = `/${def.plural}`;
    const item = `${base}/{id}`;
    const ops = new Set(def.operations);
    const api = def.api;
    const access = 'admin';
    if (ops.has('list')) add({ method: 'GET', path: base, api, access, handler: (ctx) => listResource(services, def, ctx) });
    if (ops.has('get')) add({ method: 'GET', path: item, api, access, handler: (ctx) => getResource(services, def, ctx) });
    if (ops.has('create')) add({ method: 'POST', path: base, api, access, handler: (ctx) => createResource(services, def, ctx) });
    if (ops.has('replace')) add({ method: 'PUT', path: item, api, access, handler: (ctx) => updateResource(services, def, ctx, 'replace') });
    if (ops.has('patch')) add({ method: 'PATCH', path: item, api, access, handler: (ctx) => updateResource(services, def, ctx, 'patch') });
    if (ops.has('delete')) add({ method: 'DELETE', path: item, api, access, handler: (ctx) => deleteResource(services, def, ctx) });
    for (const [name, rel] of Object.entries(def.relations ?? {})) {
      add({ method: 'GET', path: `${item}/${name}`, api, access, handler: (ctx) => listRelation(services, def, resource(rel.resource), rel.foreignKey, ctx) });
    }
    if (def.roleAttributes) {
      const field = def.roleAttributes.field;
      add({ method: 'GET', path: `/${def.roleAttributes.listPath}`, api, access, handler: (ctx) => listAttributes(services, def, field, ctx) });
    }
  }
  return routes;
}

export function listResource(services: Services, def: ResourceDef, ctx: Ctx, scope?: { sql: string; params: unknown[] }) {
  const repo = services.store.repoFor(def);
  const result = repo.list({ ...listParams(ctx.query), scope });
  return { data: services.present(def, result.rows), meta: listMeta(result, repo.filterableFields) };
}

function listMeta(page: Page, filterableFields: string[]) {
  return { pagination: { limit: page.limit, offset: page.offset, totalCount: page.totalCount }, filterableFields };
}

function getResource(services: Services, def: ResourceDef, ctx: Ctx) {
  const row = services.store.repoFor(def).get(ctx.params.id);
  return { data: services.present(def, [row])[0] };
}

function listRelation(services: Services, parent: ResourceDef, child: ResourceDef, foreignKey: string, ctx: Ctx) {
  services.store.repoFor(parent).get(ctx.params.id);
  return listResource(services, child, ctx, { sql: `e."${foreignKey}" = ?`, params: [ctx.params.id] });
}

function listAttributes(services: Services, def: ResourceDef, field: string, ctx: Ctx) {
  const repo = services.store.repoFor(def);
  const result = repo.attributeValues(field, listParams(ctx.query));
  return { data: result.values, meta: listMeta(result, ['id']) };
}

/** Validated body of a verb, with references checked to exist (a dangling id is the client's mistake: 400). */
export async function validBody(services: Services, def: ResourceDef, verb: Verb, ctx: Ctx): Promise<Record<string, unknown>> {
  const body = services.validators.body(def, verb, await ctx.json());
  for (const [name, field] of Object.entries(def.fields)) {
    if (field.type.kind !== 'ref' || typeof body[name] !== 'string') continue;
    const target = resource(field.type.resource);
    if (!services.store.repoFor(target).find(body[name] as string)) {
      throw invalidField(name, `no ${target.label} found with id '${body[name]}'`, body[name]);
    }
  }
  return body;
}

/** PUT replaces every updatable field: what the body leaves out goes back to its default. */
export function withReplaceDefaults(def: ResourceDef, body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { tags: {}, ...body };
  for (const [name, field] of Object.entries(def.fields)) {
    if (field.replace === 'no' || field.readOnly || field.virtual || name in out) continue;
    out[name] = field.default ?? null;
  }
  return out;
}

/** 201 with `{id, _links: {self}}`, the create shape of every OpenZiti resource. */
export function created(def: ResourceDef, id: string) {
  return { status: 201, data: { _links: { self: links(def, id).self }, id } };
}

async function createResource(services: Services, def: ResourceDef, ctx: Ctx) {
  const body = await validBody(services, def, 'create', ctx);
  const id = services.store.tx(() => services.store.repoFor(def).insert(body, { now: ctx.now.toISOString() }));
  return created(def, id);
}

export async function updateResource(
  services: Services,
  def: ResourceDef,
  ctx: Ctx,
  verb: 'replace' | 'patch',
  transform: (body: Record<string, unknown>, existing: Row) => Record<string, unknown> = (body) => body,
) {
  const repo = services.store.repoFor(def);
  const existing = repo.get(ctx.params.id);
  if (existing.isSystem) throw new ApiError('ENTITY_CAN_NOT_BE_UPDATED', { message: `the ${def.label} '${existing.id}' is built in and cannot be updated` });
  const body = await validBody(services, def, verb, ctx);
  const values = transform(verb === 'replace' ? withReplaceDefaults(def, body) : body, existing);
  services.store.tx(() => repo.update(existing.id, values, ctx.now.toISOString()));
  return { data: {} };
}

function deleteResource(services: Services, def: ResourceDef, ctx: Ctx) {
  const repo = services.store.repoFor(def);
  const existing = repo.get(ctx.params.id);
  if (existing.isSystem) throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { message: `the ${def.label} '${existing.id}' is built in and cannot be deleted` });
  services.store.tx(() => repo.delete(existing.id));
  return { data: {} };
}
