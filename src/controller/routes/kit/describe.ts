import { resource, type RelationDef, type ResourceDef } from '../../../resources/index.js';
import type { Responses, Success } from '../../server/responses.js';
import type { Access, ApiName, Handler, Route } from '../../server/types.js';

/**
 * What the standard routes of a resource answer, for the served document: the generic routes describe themselves
 * with these, and so do the handlers that take a standard route over and answer as it would.
 */
export const answers = {
  list: (def: ResourceDef) => (r: Responses) => r.list(def),
  detail: (def: ResourceDef) => (r: Responses) => r.detail(def),
  created: (def: ResourceDef) => (r: Responses) => r.created(def),
  updated: (def: ResourceDef) => (r: Responses) => r.empty(`the ${def.label} was updated`),
  deleted: (def: ResourceDef) => (r: Responses) => r.empty(`the ${def.label} was deleted`),
  /** A sub-list answered without reading its parent lists nothing for an unknown parent, never 404. */
  relation:
    (rel: RelationDef) =>
    (r: Responses): Success => ({
      ...r.list(resource(rel.resource)),
      emptyForUnknownParent: !rel.readsParent,
    }),
  attributes: () => (r: Responses) =>
    r.page('listRoleAttributesEnvelope', 'role attributes in use', { type: 'array', items: { type: 'string' } }),
};

/** The verbs of the standard group of a resource, each one route. */
export type StandardVerb = 'list' | 'get' | 'create' | 'replace' | 'patch' | 'delete';

type StandardAnswer = 'list' | 'detail' | 'created' | 'updated' | 'deleted';

const STANDARD: Record<StandardVerb, { method: Route['method']; item: boolean; responds: StandardAnswer }> = {
  list: { method: 'GET', item: false, responds: 'list' },
  get: { method: 'GET', item: true, responds: 'detail' },
  create: { method: 'POST', item: false, responds: 'created' },
  replace: { method: 'PUT', item: true, responds: 'updated' },
  patch: { method: 'PATCH', item: true, responds: 'updated' },
  delete: { method: 'DELETE', item: true, responds: 'deleted' },
};

/**
 * The standard route of a verb on a resource: its method and path (`/<plural>` or `/<plural>/{id}`), the resource's
 * API, admins only, what it answers and, for a write, the body it takes. The generic routes are made with it, and so
 * is a handler that takes one over and answers as it would. `at` serves it elsewhere: another base path (the
 * `/routers` alias of `/transit-routers`), API or access.
 */
export function standardRoute(
  def: ResourceDef,
  verb: StandardVerb,
  handler: Handler,
  at: { base?: string; api?: ApiName | 'both'; access?: Access } = {},
): Route {
  const { method, item, responds } = STANDARD[verb];
  const base = at.base ?? `/${def.plural}`;
  const writes = verb === 'create' || verb === 'replace' || verb === 'patch';
  return {
    method,
    path: item ? `${base}/{id}` : base,
    api: at.api ?? def.api,
    access: at.access ?? 'admin',
    responds: answers[responds](def),
    ...(writes ? { takes: { resource: def.name, verb } } : {}),
    handler,
  };
}
