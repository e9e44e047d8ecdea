import { computedField, nameField, optionalListField, roleAttributesField } from './common.js';
import type { ResourceDef } from './types.js';

/** A service: what identities dial and bind, with its configs and the attributes policies select it by. */
export const service: ResourceDef = {
  name: 'service',
  plural: 'services',
  label: 'service',
  api: 'management',
  operations: ['list', 'get', 'create', 'replace', 'patch', 'delete'],
  table: 'services',
  description: 'An application or network resource that identities dial (use) and bind (host)',
  fields: {
    name: nameField('Unique name of the service'),
    roleAttributes: roleAttributesField('service'),
    // Deleting a config takes it out of every service that uses it, as OpenZiti does.
    configs: optionalListField(
      { kind: 'refList', resource: 'config', onDelete: 'clear' },
      'Ids of the configs of the service: at most one per config type, each of a type that targets services',
    ),
    encryptionRequired: {
      type: { kind: 'boolean' },
      // OpenZiti's update and patch models carry it ("read-only property, set at create") and its manager drops it:
      // accepted in a body, ignored after create (the service behaviour removes it from updates).
      description: 'Connections must be end-to-end encrypted; set at creation only',
      create: 'required',
      replace: 'optional',
      patch: 'optional',
      filterable: true,
      sortable: true,
    },
    terminatorStrategy: {
      // The strategies OpenZiti's controller registers; it refuses any other name on create and update.
      type: { kind: 'enum', values: ['smartrouting', 'weighted', 'random', 'sticky'] },
      description: 'How a router picks among the terminators of the service',
      create: 'optional',
      replace: 'optional',
      patch: 'optional',
      default: 'smartrouting',
      filterable: true,
      sortable: true,
    },
    maxIdleTimeMillis: {
      type: { kind: 'integer', minimum: 0 },
      description: 'Idle time after which a circuit is closed; 0 for never',
      create: 'optional',
      replace: 'optional',
      patch: 'optional',
      default: 0,
      filterable: true,
      sortable: true,
    },
    config: computedField(
      { kind: 'map', values: { kind: 'object' } },
      'Config data by config type name, for the config types the request asks for (configTypes; `all` for every one)',
    ),
    permissions: computedField(
      { kind: 'array', items: { kind: 'enum', values: ['Dial', 'Bind', 'Invalid'] } },
      'What the identity the service is read for may do with it: Dial, Bind, or Invalid for neither',
    ),
    postureQueries: computedField(
      {
        kind: 'array',
        items: {
          kind: 'object',
          properties: {
            policyId: { kind: 'string' },
            policyType: { kind: 'enum', values: ['Dial', 'Bind', 'Invalid'] },
            isPassing: { kind: 'boolean' },
            postureQueries: { kind: 'array', items: { kind: 'object' } },
          },
          required: ['policyId', 'isPassing', 'postureQueries'],
        },
      },
      'Posture queries per policy that grants a permission',
    ),
  },
  relations: {
    configs: { resource: 'config', listField: 'configs', description: 'Configs of the service' },
    terminators: {
      resource: 'terminator',
      foreignKey: 'service',
      description: 'Where the service is hosted: its terminators',
    },
    'service-policies': {
      resource: 'service-policy',
      policyRoles: 'serviceRoles',
      description: 'Service policies that select the service',
    },
    'service-edge-router-policies': {
      resource: 'service-edge-router-policy',
      policyRoles: 'serviceRoles',
      description: 'Service edge router policies that select the service',
    },
    identities: {
      resource: 'identity',
      through: 'service-policy',
      from: 'serviceRoles',
      to: 'identityRoles',
      typeQuery: { name: 'policyType', field: 'type' },
      description: 'Identities that may dial or bind the service',
    },
    'edge-routers': {
      resource: 'edge-router',
      aliases: ['routers'],
      through: 'service-edge-router-policy',
      from: 'serviceRoles',
      to: 'edgeRouterRoles',
      description: 'Edge routers that may carry the service',
    },
  },
  roleAttributes: { field: 'roleAttributes', listPath: 'service-role-attributes' },
  cli: {
    noun: 'service',
    aliases: ['services', 'svc'],
    group: 'Services and configs',
    // As `ziti edge create service`: encrypted unless --no-encryption-required, since it cannot be changed later.
    createDefaults: { encryptionRequired: true },
    columns: [
      { header: 'ID', field: 'id' },
      { header: 'Name', field: 'name' },
      { header: 'Attributes', field: 'roleAttributes' },
      { header: 'Encryption', field: 'encryptionRequired' },
      { header: 'Strategy', field: 'terminatorStrategy', priority: 1 },
      { header: 'Created', field: 'createdAt', priority: 1 },
    ],
  },
};
