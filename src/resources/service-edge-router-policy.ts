import { nameField, namedRolesField, rolesField, semanticField } from './common.js';
import type { ResourceDef } from './types.js';

/** Lets the services it selects be reached through the edge routers it selects. */
export const serviceEdgeRouterPolicy: ResourceDef = {
  name: 'service-edge-router-policy',
  plural: 'service-edge-router-policies',
  label: 'service edge router policy',
  api: 'management',
  operations: ['list', 'get', 'create', 'replace', 'patch', 'delete'],
  table: 'service_edge_router_policies',
  description: 'Lets the services it selects be reached through the edge routers it selects',
  fields: {
    name: nameField('Unique name of the policy'),
    semantic: semanticField,
    serviceRoles: rolesField('service', 'Services the policy applies to: #attribute, @id or #all'),
    serviceRolesDisplay: namedRolesField('serviceRoles'),
    edgeRouterRoles: rolesField('edge-router', 'Edge routers that may carry them: #attribute, @id or #all'),
    edgeRouterRolesDisplay: namedRolesField('edgeRouterRoles'),
  },
  relations: {
    services: { resource: 'service', roles: 'serviceRoles', description: 'Services the policy selects' },
    'edge-routers': {
      resource: 'edge-router',
      roles: 'edgeRouterRoles',
      description: 'Edge routers the policy selects',
    },
  },
  cli: {
    noun: 'service-edge-router-policy',
    aliases: ['service-edge-router-policies', 'serp'],
    group: 'Policies and posture',
    columns: [
      { header: 'ID', field: 'id' },
      { header: 'Name', field: 'name' },
      { header: 'Semantic', field: 'semantic' },
      { header: 'Services', field: 'serviceRoles' },
      { header: 'Routers', field: 'edgeRouterRoles' },
    ],
  },
};
