import { nameField, namedRolesField, rolesField, semanticField } from './common.js';
import type { ResourceDef } from './types.js';

/** Grants the identities it selects the right to dial (use) or bind (host) the services it selects. */
export const servicePolicy: ResourceDef = {
  name: 'service-policy',
  plural: 'service-policies',
  label: 'service policy',
  api: 'management',
  operations: ['list', 'get', 'create', 'replace', 'patch', 'delete'],
  table: 'service_policies',
  description: 'Lets the identities it selects dial or bind the services it selects, if their posture checks pass',
  fields: {
    name: nameField('Unique name of the policy'),
    type: {
      type: { kind: 'enum', values: ['Dial', 'Bind'] },
      description: 'Dial (use the services) or Bind (host them)',
      create: 'required',
      replace: 'required',
      patch: 'optional',
      filterable: true,
      sortable: true,
    },
    semantic: semanticField,
    identityRoles: rolesField('identity', 'Identities the policy applies to: #attribute, @id or #all'),
    identityRolesDisplay: namedRolesField('identityRoles'),
    serviceRoles: rolesField('service', 'Services the policy grants: #attribute, @id or #all'),
    serviceRolesDisplay: namedRolesField('serviceRoles'),
    postureCheckRoles: rolesField('posture-check', 'Posture checks an identity must pass: #attribute, @id or #all'),
    postureCheckRolesDisplay: namedRolesField('postureCheckRoles'),
  },
  relations: {
    identities: { resource: 'identity', roles: 'identityRoles', description: 'Identities the policy selects' },
    services: { resource: 'service', roles: 'serviceRoles', description: 'Services the policy selects' },
    'posture-checks': {
      resource: 'posture-check',
      roles: 'postureCheckRoles',
      description: 'Posture checks the policy requires',
    },
  },
  cli: {
    noun: 'service-policy',
    aliases: ['service-policies', 'sp'],
    group: 'Policies and posture',
    columns: [
      { header: 'ID', field: 'id' },
      { header: 'Name', field: 'name' },
      { header: 'Type', field: 'type' },
      { header: 'Semantic', field: 'semantic' },
      { header: 'Identities', field: 'identityRoles' },
      { header: 'Services', field: 'serviceRoles' },
      { header: 'Posture Checks', field: 'postureCheckRoles', priority: 1 },
    ],
  },
};
