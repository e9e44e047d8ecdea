import { isDeepStrictEqual } from 'node:util';
import { ApiError, invalidField } from '../../../protocol/errors.js';
import { CATALOGUE, resource, type RelationDef, type ResourceDef } from '../../../resources/index.js';
import type { Runtime } from '../../runtime.js';
import type { Verb } from '../../server/schemas.js';
import type { Ctx, Route } from '../../server/types.js';
import type { Page, Row, Scope } from '../../store/repository.js';
import { links } from '../../model/present.js';
import { answers, standardRoute } from './describe.js';
import { listParams } from './query.js';

/**
 * The standard group (list, get, create, replace, patch, delete), relation sub-lists and role-attribute lists of
 * every catalogue resource, derived from its entry. A handler module that registers a route first takes it over.
 */
export function crudRoutes(rt: Runtime, taken: (route: Pick<Route, 'method' | 'path' | 'api'>) => boolean): Route[] {
  const routes: Route[] = [];
  const add = (route: Route) => {
    if (!taken(route)) routes.push(route);
  };
  for (const def of CATALOGUE) {
    const item = `/${def.plural}/{id}`;
    const ops = new Set(def.operations);
    // Sub-lists (relations, role attributes) are read-only lists beside the standard group.
    const subList = (path: string, responds: Route['responds'], handler: Route['handler']) =>
      add({ method: 'GET', path, api: def.api, access: 'admin', responds, handler });
    if (ops.has('list')) add(standardRoute(def, 'list', (ctx) => listResource(rt, def, ctx)));
    if (ops.has('get')) add(standardRoute(def, 'get', (ctx) => getResource(rt, def, ctx)));
    if (ops.has('create')) add(standardRoute(def, 'create', (ctx) => createResource(rt, def, ctx)));
    if (ops.has('replace')) add(standardRoute(def, 'replace', (ctx) => updateResource(rt, def, ctx, 'replace')));
    if (ops.has('patch')) add(standardRoute(def, 'patch', (ctx) => updateResource(rt, def, ctx, 'patch')));
    if (ops.has('delete')) add(standardRoute(def, 'delete', (ctx) => deleteResource(rt, def, ctx)));
    for (const [name, rel] of Object.entries(def.relations ?? {})) {
      subList(`${item}/${name}`, answers.relation(rel), (ctx) => listRelation(rt, def, rel, ctx));
    }
    if (def.roleAttributes) {
      const field = def.roleAttributes.field;
      const path = `/${def.roleAttributes.listPath}`;
      subList(path, answers.attributes(), (ctx) => listAttributes(rt, def, field, ctx));
    }
  }
  return routes;
}

export async function listResource(rt: Runtime, def: ResourceDef, ctx: Ctx, scope?: Scope) {
  const repo = rt.store.repoFor(def);
  const result = await repo.list({ ...listParams(ctx.query), scope });
  return { data: await rt.present(def, result.rows), meta: listMeta(result, repo.filterableFields) };
}

/** `meta` of a list answer: where the page sits, and which fields a filter may name. */
export function listMeta(page: Page, filterableFields: string[]) {
  return { pagination: { limit: page.limit, offset: page.offset, totalCount: page.totalCount }, filterableFields };
}

async function getResource(rt: Runtime, def: ResourceDef, ctx: Ctx) {
  return { dataJson: await rt.answerById(def, ctx.params.id) };
}

/** A sub-list of the parent entity, by the relation's kind; an unknown parent lists nothing unless `readsParent`. */
async function listRelation(rt: Runtime, parent: ResourceDef, rel: RelationDef, ctx: Ctx) {
  if (rel.readsParent) await rt.store.repoFor(parent).get(ctx.params.id);
  return listResource(rt, resource(rel.resource), ctx, await relationScope(rt, parent, rel, ctx.params.id, ctx.query));
}

/** Which entities of the relation's resource belong to the parent's sub-list. */
async function relationScope(
  rt: Runtime,
  parent: ResourceDef,
  rel: RelationDef,
  id: string,
  query: URLSearchParams,
): Promise<Scope> {
  if ('foreignKey' in rel) return { where: { [rel.foreignKey]: id } };
  if ('listField' in rel)
    return rel.reverse
      ? { holding: { field: rel.listField, value: id } }
      : { memberOf: { def: parent, field: rel.listField, ownerId: id } };
  if ('policyRoles' in rel)
    return { selecting: { index: rt.store.roleIndex(rel.resource, rel.policyRoles), entityId: id } };
  if ('roles' in rel) return { selectedBy: { index: rt.store.roleIndex(parent.name, rel.roles), policyIds: [id] } };
  const policyWhere = rel.typeQuery ? policyTypeWhere(resource(rel.through), rel.typeQuery, query) : undefined;
  const policyIds = await rt.store.roleIndex(rel.through, rel.from).policiesSelecting(id, policyWhere);
  return { selectedBy: { index: rt.store.roleIndex(rel.through, rel.to), policyIds } };
}

/** `policyType=dial` as a condition on the policies' type field; absent means every type. */
function policyTypeWhere(
  policy: ResourceDef,
  typeQuery: { name: string; field: string },
  query: URLSearchParams,
): Record<string, string> | undefined {
  const wanted = query.get(typeQuery.name);
  if (wanted === null || wanted === '') return undefined;
  const type = policy.fields[typeQuery.field].type;
  const values = type.kind === 'enum' ? type.values : [];
  const value = values.find((v) => v.toLowerCase() === wanted.toLowerCase());
  if (!value)
    throw invalidField(typeQuery.name, `must be one of ${values.map((v) => v.toLowerCase()).join(', ')}`, wanted);
  return { [typeQuery.field]: value };
}

async function listAttributes(rt: Runtime, def: ResourceDef, field: string, ctx: Ctx) {
  const repo = rt.store.repoFor(def);
  const result = await repo.setValues(field, listParams(ctx.query));
  return { data: result.values, meta: listMeta(result, ['id']) };
}

/**
 * Validated body of a verb, with every reference checked to exist (a dangling id is the client's mistake: 400):
 * single references, reference lists, and the `@id`s of role sets.
 */
export async function validBody(
  rt: Runtime,
  def: ResourceDef,
  verb: Verb,
  ctx: Ctx,
  existing?: Row,
): Promise<Record<string, unknown>> {
  const body = rt.validators.body(def, verb, withoutEchoes(def, verb, await ctx.json(), existing));
  for (const [name, field] of Object.entries(def.fields)) {
    const type = field.type;
    if (type.kind !== 'ref' && type.kind !== 'refList' && type.kind !== 'roles') continue;
    const value = body[name];
    if (value === undefined || value === null) continue;
    const target = resource(type.resource);
    const ids =
      type.kind === 'ref'
        ? [value as string]
        : type.kind === 'refList'
          ? (value as string[])
          : roleIds(name, value as string[]);
    const found = new Set(
      (await rt.store.repoFor(target).findAll({ id: [...new Set(ids)] }, { columns: [] })).map((r) => r.id),
    );
    const missing = ids.find((id) => !found.has(id));
    if (missing !== undefined) throw invalidField(name, `no ${target.label} found with id '${missing}'`, missing);
  }
  return body;
}

/**
 * What forms send back that is no change, taken out before validation. OpenZiti's request models ignore unknown
 * members and treat an optional field's zero value as absent, and its console relies on both: it sends `"id": ""`,
 * a config's `configTypeId` on edit, `"terminatorStrategy": ""` on create. We stay strict (an unknown field, or a
 * field that cannot be written, is a 400), except for these echoes, which change nothing:
 * - `id` when empty or the entity's own;
 * - on an update, a field the verb cannot write (set at creation, or by the server) holding its current value; a
 *   different value is refused, naming the field;
 * - `""` in a text field that is optional even on create: absent (its default on create and replace), or none where
 *   the field takes null. A name or other required field stays required: `""` there is refused as before.
 */
export function withoutEchoes(def: ResourceDef, verb: Verb, raw: unknown, existing?: Row): unknown {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const body: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  if (body.id === '' || (existing && body.id === existing.id)) delete body.id;
  for (const [name, field] of Object.entries(def.fields)) {
    if (!(name in body)) continue;
    const presence = verb === 'patch' ? field.patch : field[verb];
    if (existing && (presence === 'no' || field.readOnly) && !field.computed && !field.virtual) {
      if (!isDeepStrictEqual(body[name], existing[name] ?? null)) {
        throw invalidField(
          name,
          field.readOnly
            ? 'is set by the controller and cannot be written'
            : 'cannot be changed once the entity exists',
          body[name],
        );
      }
      delete body[name];
    } else if (
      body[name] === '' &&
      presence === 'optional' &&
      field.create !== 'required' &&
      (field.type.kind === 'string' || field.type.kind === 'enum')
    ) {
      if (field.nullable && field.default === null) body[name] = null;
      else delete body[name];
    }
  }
  return body;
}

/** The `@id`s of a role set; `#all` must stand alone (wire-protocol section 4). */
function roleIds(field: string, roles: string[]): string[] {
  if (roles.includes('#all') && roles.length > 1)
    throw invalidField(field, '#all must be the only role when it is used', roles);
  return roles.filter((r) => r.startsWith('@')).map((r) => r.slice(1));
}

/**
 * PUT replaces every updatable field: what the body leaves out goes back to its default. A field required at
 * creation that a replace may leave out (a posture check's `typeId`) has no default to go back to: it keeps its value.
 */
export function withReplaceDefaults(def: ResourceDef, body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { tags: {}, ...body };
  for (const [name, field] of Object.entries(def.fields)) {
    if (field.replace === 'no' || field.readOnly || field.virtual || field.internal || field.computed || name in out)
      continue;
    if (field.create === 'required' && field.default === undefined) continue;
    out[name] = field.default ?? null;
  }
  return out;
}

/** 201 with `{id, _links: {self}}`, the create shape of every OpenZiti resource. */
export function created(def: ResourceDef, id: string) {
  return { status: 201, data: { _links: { self: links(def, id).self }, id } };
}

export async function createResource(rt: Runtime, def: ResourceDef, ctx: Ctx) {
  const body = await validBody(rt, def, 'create', ctx);
  const id = await rt.writes.insert(def.name, body, { now: ctx.now.toISOString() });
  return created(def, id);
}

export async function updateResource(
  rt: Runtime,
  def: ResourceDef,
  ctx: Ctx,
  verb: 'replace' | 'patch',
  transform: (body: Record<string, unknown>, existing: Row) => Record<string, unknown> = (body) => body,
) {
  const repo = rt.store.repoFor(def);
  const existing = await repo.get(ctx.params.id);
  // Built-ins are read-only where the resource says so (isSystem served); the default auth policy is editable (its
  // behaviour refuses its deletion).
  if (existing.isSystem && def.hasSystemEntities)
    throw new ApiError('ENTITY_CAN_NOT_BE_UPDATED', {
      message: `the ${def.label} '${existing.id}' is built in and cannot be updated`,
    });
  const body = await validBody(rt, def, verb, ctx, existing);
  const values = transform(verb === 'replace' ? withReplaceDefaults(def, body) : body, existing);
  await rt.writes.update(def.name, existing, values, ctx.now.toISOString(), verb);
  return { data: {} };
}

export async function deleteResource(rt: Runtime, def: ResourceDef, ctx: Ctx) {
  const repo = rt.store.repoFor(def);
  const existing = await repo.get(ctx.params.id);
  if (existing.isSystem && def.hasSystemEntities)
    throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', {
      message: `the ${def.label} '${existing.id}' is built in and cannot be deleted`,
    });
  await rt.writes.delete(def.name, existing);
  return { data: {} };
}
