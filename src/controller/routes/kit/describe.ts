import { resource, type RelationDef, type ResourceDef } from '../../../resources/index.js';
import type { Responses, Success } from '../../server/responses.js';

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
