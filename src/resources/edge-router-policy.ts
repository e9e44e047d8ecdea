import { nameField, namedRolesField, rolesField, semanticField } from './common.js';
import type { ResourceDef } from './types.js';

/** Lets the identities it selects connect to the edge routers it selects. */
export const edgeRouterPolicy: ResourceDef = {
  name: 'edge-router-policy',
  plural: 'edge-router-policies',
  label: 'edge router policy',
  api: 'management',
  operations: ['list', 'get', 'create', 'replace', 'patch', 'delete'],
  table: 'edge_router_policies',
  description: 'Lets the identities it selects connect to the edge routers it selects',
  hasSystemEntities: true,
  fields: {
    name: nameField('Unique name of the policy'),
    semantic: semanticField,
    identityRoles: rolesField('identity', 'Identities the policy applies to: #attribute, @id or #all'),
    identityRolesDisplay: namedRolesField('identityRoles'),
    edgeRouterRoles: rolesField('edge-router', 'Edge routers they may use: #attribute, @id or #all'),
    edgeRouterRolesDisplay: namedRolesField('edgeRouterRoles'),
  },
  relations: {
    identities: { resource: 'identity', roles: 'identityRoles', description: 'Identities the policy selects' },
    'edge-routers': {
      resource: 'edge-router',
      roles: 'edgeRouterRoles',
      description: 'Edge routers the policy selects',
    },
  },
  cli: {
    noun: 'edge-router-policy',
    aliases: ['edge-router-policies', 'erp'],
    group: 'Policies and posture',
    columns: [
      { header: 'ID', field: 'id' },
      { header: 'Name', field: 'name' },
      { header: 'Semantic', field: 'semantic' },
      { header: 'Identities', field: 'identityRoles' },
      { header: 'Routers', field: 'edgeRouterRoles' },
    ],
  },
};
