import {
  computedField,
  datetime,
  IDENTITY_TYPES,
  nameField,
  optionalField,
  roleAttributesField,
  serverField,
  TERMINATOR_PRECEDENCES,
  terminatorCost,
} from './common.js';
import type { FieldType } from './types.js';
import type { ResourceDef } from './types.js';

/** One outstanding enrollment as the identity read model shows it. */
const outstandingEnrollment: FieldType = {
  kind: 'object',
  properties: { id: { kind: 'string' }, jwt: { kind: 'string' }, token: { kind: 'string' }, expiresAt: datetime },
  required: ['id', 'jwt', 'token', 'expiresAt'],
};

export const identity: ResourceDef = {
  name: 'identity',
  plural: 'identities',
  label: 'identity',
  api: 'management',
  operations: ['list', 'get', 'create', 'replace', 'patch', 'delete'],
  table: 'identities',
  description: 'A user, device or service that authenticates to the network',
  fields: {
    name: nameField('Unique name of the identity'),
    type: {
      type: { kind: 'enum', values: IDENTITY_TYPES },
      description: 'Identity type; stored as the built-in type Default (Router identities belong to routers)',
      // Written as a type name, read as a reference to the identity type (with its id in `typeId`).
      read: { type: { kind: 'entityRef', resource: 'identity-type' } },
      create: 'required',
      replace: 'required',
      patch: 'optional',
      filterable: true,
      sortable: true,
    },
    isAdmin: {
      type: { kind: 'boolean' },
      description: 'Grants full access to the management API',
      create: 'required',
      replace: 'required',
      patch: 'optional',
      filterable: true,
      sortable: true,
    },
    roleAttributes: roleAttributesField('identity'),
    externalId: {
      // No minimum length, as in OpenZiti's write models: clients (ZAC) send "" for "none", stored as null.
      type: { kind: 'string', maxLength: 1024 },
      description:
        'Identifier of the identity in an external identity provider; unique; an empty string means none (null)',
      create: 'optional',
      replace: 'optional',
      patch: 'optional',
      nullable: true,
      readsNull: true,
      default: null,
      unique: true,
      filterable: true,
      sortable: true,
    },
    authPolicyId: {
      type: { kind: 'ref', resource: 'auth-policy', as: 'authPolicy' },
      description: 'Auth policy that decides how the identity may authenticate',
      create: 'optional',
      replace: 'optional',
      patch: 'optional',
      nullable: true,
      default: 'default',
      filterable: true,
      sortable: true,
    },
    appData: optionalField({ kind: 'object' }, 'Free-form data for applications', { nullable: true, default: {} }),
    defaultHostingCost: optionalField(
      terminatorCost,
      'Cost of terminators this identity hosts, unless set per service',
      { default: 0 },
    ),
    defaultHostingPrecedence: {
      type: { kind: 'enum', values: TERMINATOR_PRECEDENCES },
      description: 'Precedence of terminators this identity hosts, unless set per service',
      create: 'optional',
      replace: 'optional',
      patch: 'optional',
      default: 'default',
    },
    serviceHostingCosts: optionalField({ kind: 'map', values: terminatorCost }, 'Hosting cost per service id', {
      nullable: true,
      default: {},
    }),
    serviceHostingPrecedences: {
      type: { kind: 'map', values: { kind: 'enum', values: TERMINATOR_PRECEDENCES } },
      description: 'Hosting precedence per service id',
      create: 'optional',
      replace: 'optional',
      patch: 'optional',
      nullable: true,
      default: {},
    },
    enrollment: {
      type: { kind: 'object' },
      description: 'Enrollment to create with the identity: {"ott": true} or {"updb": "<username>"}',
      create: 'optional',
      replace: 'no',
      patch: 'no',
      virtual: true,
      // Read back as the identity's outstanding enrollments, by method.
      read: {
        type: {
          kind: 'object',
          properties: {
            ott: outstandingEnrollment,
            updb: outstandingEnrollment,
            // A one-time token whose certificate a third-party CA signs: that CA beside it.
            ottca: {
              kind: 'object',
              properties: {
                ...(outstandingEnrollment as { properties: Record<string, FieldType> }).properties,
                caId: { kind: 'string' },
                ca: { kind: 'entityRef', resource: 'ca' },
              },
              required: ['id', 'jwt', 'token', 'expiresAt', 'caId', 'ca'],
            },
          },
        },
      },
    },
    isDefaultAdmin: serverField({ kind: 'boolean' }, 'The administrator created with the controller', {
      filterable: true,
      default: false,
    }),
    disabledAt: serverField(datetime, 'When the identity was disabled', { readsNull: true }),
    disabledUntil: serverField(datetime, 'When a timed disable ends; null while disabled indefinitely', {
      readsNull: true,
    }),
    envInfo: serverField(
      { kind: 'object' },
      'Environment the identity last authenticated from (os, arch, hostname, ...)',
    ),
    sdkInfo: serverField({ kind: 'object' }, 'SDK the identity last authenticated with (type, version, ...)'),
    typeId: computedField({ kind: 'string' }, 'Id of the identity type (Default)'),
    disabled: computedField({ kind: 'boolean' }, 'Disabled now (disabledAt set and disabledUntil not yet passed)'),
    authenticators: computedField(
      {
        kind: 'object',
        properties: {
          updb: {
            kind: 'object',
            properties: { id: { kind: 'string' }, username: { kind: 'string' } },
            required: ['id', 'username'],
          },
          cert: {
            kind: 'object',
            properties: { id: { kind: 'string' }, fingerprint: { kind: 'string' } },
            required: ['id'],
          },
        },
      },
      "The identity's authenticators, by method",
    ),
    hasApiSession: computedField({ kind: 'boolean' }, 'The identity has at least one API session'),
    isMfaEnabled: computedField({ kind: 'boolean' }, 'The identity has completed TOTP MFA enrollment'),
    hasEdgeRouterConnection: computedField(
      { kind: 'boolean' },
      'Connected to an edge router (always false: this controller has no data plane for a connection to exist)',
    ),
    edgeRouterConnectionStatus: computedField(
      { kind: 'enum', values: ['online', 'offline', 'unknown'] },
      'Edge router connection status',
    ),
    permissions: computedField(
      { kind: 'array', items: { kind: 'string' } },
      'Fine-grained permissions (none yet: isAdmin decides)',
    ),
  },
  relations: {
    authenticators: {
      resource: 'authenticator',
      foreignKey: 'identityId',
      description: "The identity's authenticators",
    },
    enrollments: {
      resource: 'enrollment',
      foreignKey: 'identityId',
      description: "The identity's outstanding enrollments",
    },
    'service-policies': {
      resource: 'service-policy',
      policyRoles: 'identityRoles',
      description: 'Service policies that select the identity',
    },
    'edge-router-policies': {
      resource: 'edge-router-policy',
      policyRoles: 'identityRoles',
      description: 'Edge router policies that select the identity',
    },
    services: {
      resource: 'service',
      through: 'service-policy',
      from: 'identityRoles',
      to: 'serviceRoles',
      typeQuery: { name: 'policyType', field: 'type' },
      description: 'Services the identity may dial or bind',
    },
    'edge-routers': {
      resource: 'edge-router',
      aliases: ['routers'],
      through: 'edge-router-policy',
      from: 'identityRoles',
      to: 'edgeRouterRoles',
      description: 'Edge routers the identity may connect to',
    },
    // OpenZiti builds this one from the identity it reads (its listServiceConfigs): 404 for an unknown identity.
    'service-configs': {
      resource: 'identity-service-config',
      foreignKey: 'identityId',
      readsParent: true,
      description: "The identity's own configs for services",
    },
  },
  links: ['posture-data', 'failed-service-requests'],
  roleAttributes: { field: 'roleAttributes', listPath: 'identity-role-attributes' },
  cli: {
    noun: 'identity',
    aliases: ['identities', 'id'],
    group: 'Identities and authentication',
    columns: [
      { header: 'ID', field: 'id' },
      { header: 'Name', field: 'name' },
      { header: 'Type', field: 'typeId' },
      { header: 'Attributes', field: 'roleAttributes' },
      { header: 'Admin', field: 'isAdmin' },
      { header: 'Disabled', field: 'disabled' },
      { header: 'Auth Policy', field: 'authPolicy.name', priority: 1 },
      { header: 'External ID', field: 'externalId', priority: 1 },
      { header: 'Created', field: 'createdAt', priority: 1 },
    ],
    showFirst: ['id', 'name', 'typeId', 'isAdmin', 'roleAttributes', 'disabled', 'authPolicy'],
  },
};
