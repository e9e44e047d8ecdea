// Recorded by `npm run schema:migration -- the-management-table-certificate-authorities-and-signers`.
// Never edit a migration that has shipped: record a new one.
import type { Migration } from '../schema-diff.js';

export const migration: Migration = {
  id: 4,
  name: 'the-management-table-certificate-authorities-and-signers',
  ops: [
    {
      op: 'addColumn',
      table: 'authenticators',
      column: {
        name: 'pendingCertPem',
        type: 'text',
        notNull: false,
      },
    },
    {
      op: 'addColumn',
      table: 'authenticators',
      column: {
        name: 'pendingFingerprint',
        type: 'text',
        notNull: false,
      },
    },
    {
      op: 'addColumn',
      table: 'enrollments',
      column: {
        name: 'caId',
        type: 'text',
        notNull: false,
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'services',
        columns: [
          {
            name: 'id',
            type: 'text',
            notNull: true,
          },
          {
            name: 'createdAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'updatedAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'tags',
            type: 'json',
            notNull: true,
            default: '{}',
          },
          {
            name: 'isSystem',
            type: 'integer',
            notNull: true,
            default: 0,
          },
          {
            name: 'name',
            type: 'text',
            notNull: true,
          },
          {
            name: 'roleAttributes',
            type: 'json',
            notNull: false,
            default: '[]',
          },
          {
            name: 'configs',
            type: 'json',
            notNull: false,
            default: '[]',
          },
          {
            name: 'encryptionRequired',
            type: 'integer',
            notNull: true,
          },
          {
            name: 'terminatorStrategy',
            type: 'text',
            notNull: false,
            default: 'smartrouting',
          },
          {
            name: 'maxIdleTimeMillis',
            type: 'integer',
            notNull: false,
            default: 0,
          },
        ],
        primaryKey: ['id'],
        foreignKeys: [],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'services_roleAttributes',
        columns: [
          {
            name: 'ownerId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'value',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['ownerId', 'value'],
        foreignKeys: [
          {
            column: 'ownerId',
            table: 'services',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'services_configs',
        columns: [
          {
            name: 'ownerId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'value',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['ownerId', 'value'],
        foreignKeys: [
          {
            column: 'ownerId',
            table: 'services',
            onDelete: 'cascade',
          },
          {
            column: 'value',
            table: 'configs',
            onDelete: 'set null',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'edge_routers',
        columns: [
          {
            name: 'id',
            type: 'text',
            notNull: true,
          },
          {
            name: 'createdAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'updatedAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'tags',
            type: 'json',
            notNull: true,
            default: '{}',
          },
          {
            name: 'isSystem',
            type: 'integer',
            notNull: true,
            default: 0,
          },
          {
            name: 'name',
            type: 'text',
            notNull: true,
          },
          {
            name: 'cost',
            type: 'integer',
            notNull: false,
            default: 0,
          },
          {
            name: 'noTraversal',
            type: 'integer',
            notNull: false,
            default: 0,
          },
          {
            name: 'disabled',
            type: 'integer',
            notNull: false,
            default: 0,
          },
          {
            name: 'configs',
            type: 'json',
            notNull: false,
            default: '[]',
          },
          {
            name: 'ctrlChanListeners',
            type: 'json',
            notNull: false,
            default: '{}',
          },
          {
            name: 'fingerprint',
            type: 'text',
            notNull: false,
          },
          {
            name: 'isVerified',
            type: 'integer',
            notNull: false,
            default: 0,
          },
          {
            name: 'unverifiedCertPem',
            type: 'text',
            notNull: false,
          },
          {
            name: 'unverifiedFingerprint',
            type: 'text',
            notNull: false,
          },
          {
            name: 'enrollmentToken',
            type: 'text',
            notNull: false,
          },
          {
            name: 'enrollmentJwt',
            type: 'text',
            notNull: false,
          },
          {
            name: 'enrollmentCreatedAt',
            type: 'text',
            notNull: false,
          },
          {
            name: 'enrollmentExpiresAt',
            type: 'text',
            notNull: false,
          },
          {
            name: 'roleAttributes',
            type: 'json',
            notNull: false,
            default: '[]',
          },
          {
            name: 'isTunnelerEnabled',
            type: 'integer',
            notNull: false,
            default: 0,
          },
          {
            name: 'appData',
            type: 'json',
            notNull: false,
            default: '{}',
          },
          {
            name: 'certPem',
            type: 'text',
            notNull: false,
          },
        ],
        primaryKey: ['id'],
        foreignKeys: [],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'edge_routers_configs',
        columns: [
          {
            name: 'ownerId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'value',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['ownerId', 'value'],
        foreignKeys: [
          {
            column: 'ownerId',
            table: 'edge_routers',
            onDelete: 'cascade',
          },
          {
            column: 'value',
            table: 'configs',
            onDelete: 'restrict',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'edge_routers_roleAttributes',
        columns: [
          {
            name: 'ownerId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'value',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['ownerId', 'value'],
        foreignKeys: [
          {
            column: 'ownerId',
            table: 'edge_routers',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'posture_check_types',
        columns: [
          {
            name: 'id',
            type: 'text',
            notNull: true,
          },
          {
            name: 'createdAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'updatedAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'tags',
            type: 'json',
            notNull: true,
            default: '{}',
          },
          {
            name: 'isSystem',
            type: 'integer',
            notNull: true,
            default: 0,
          },
          {
            name: 'name',
            type: 'text',
            notNull: false,
          },
          {
            name: 'operatingSystems',
            type: 'json',
            notNull: false,
          },
          {
            name: 'version',
            type: 'text',
            notNull: false,
            default: '1',
          },
        ],
        primaryKey: ['id'],
        foreignKeys: [],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'posture_checks',
        columns: [
          {
            name: 'id',
            type: 'text',
            notNull: true,
          },
          {
            name: 'createdAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'updatedAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'tags',
            type: 'json',
            notNull: true,
            default: '{}',
          },
          {
            name: 'isSystem',
            type: 'integer',
            notNull: true,
            default: 0,
          },
          {
            name: 'name',
            type: 'text',
            notNull: true,
          },
          {
            name: 'typeId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'version',
            type: 'integer',
            notNull: false,
            default: 1,
          },
          {
            name: 'roleAttributes',
            type: 'json',
            notNull: false,
            default: '[]',
          },
          {
            name: 'operatingSystems',
            type: 'json',
            notNull: false,
          },
          {
            name: 'process',
            type: 'json',
            notNull: false,
          },
          {
            name: 'semantic',
            type: 'text',
            notNull: false,
          },
          {
            name: 'processes',
            type: 'json',
            notNull: false,
          },
          {
            name: 'domains',
            type: 'json',
            notNull: false,
          },
          {
            name: 'macAddresses',
            type: 'json',
            notNull: false,
          },
          {
            name: 'timeoutSeconds',
            type: 'integer',
            notNull: false,
          },
          {
            name: 'promptOnWake',
            type: 'integer',
            notNull: false,
          },
          {
            name: 'promptOnUnlock',
            type: 'integer',
            notNull: false,
          },
          {
            name: 'ignoreLegacyEndpoints',
            type: 'integer',
            notNull: false,
          },
        ],
        primaryKey: ['id'],
        foreignKeys: [],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'posture_checks_roleAttributes',
        columns: [
          {
            name: 'ownerId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'value',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['ownerId', 'value'],
        foreignKeys: [
          {
            column: 'ownerId',
            table: 'posture_checks',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'service_policies',
        columns: [
          {
            name: 'id',
            type: 'text',
            notNull: true,
          },
          {
            name: 'createdAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'updatedAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'tags',
            type: 'json',
            notNull: true,
            default: '{}',
          },
          {
            name: 'isSystem',
            type: 'integer',
            notNull: true,
            default: 0,
          },
          {
            name: 'name',
            type: 'text',
            notNull: true,
          },
          {
            name: 'type',
            type: 'text',
            notNull: true,
          },
          {
            name: 'semantic',
            type: 'text',
            notNull: true,
          },
          {
            name: 'identityRoles',
            type: 'json',
            notNull: false,
            default: '[]',
          },
          {
            name: 'serviceRoles',
            type: 'json',
            notNull: false,
            default: '[]',
          },
          {
            name: 'postureCheckRoles',
            type: 'json',
            notNull: false,
            default: '[]',
          },
        ],
        primaryKey: ['id'],
        foreignKeys: [],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'service_policies_identityRoles',
        columns: [
          {
            name: 'ownerId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'value',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['ownerId', 'value'],
        foreignKeys: [
          {
            column: 'ownerId',
            table: 'service_policies',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'service_policies_identityRoles_matches',
        columns: [
          {
            name: 'policyId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'entityId',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['policyId', 'entityId'],
        foreignKeys: [
          {
            column: 'policyId',
            table: 'service_policies',
            onDelete: 'cascade',
          },
          {
            column: 'entityId',
            table: 'identities',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'service_policies_serviceRoles',
        columns: [
          {
            name: 'ownerId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'value',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['ownerId', 'value'],
        foreignKeys: [
          {
            column: 'ownerId',
            table: 'service_policies',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'service_policies_serviceRoles_matches',
        columns: [
          {
            name: 'policyId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'entityId',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['policyId', 'entityId'],
        foreignKeys: [
          {
            column: 'policyId',
            table: 'service_policies',
            onDelete: 'cascade',
          },
          {
            column: 'entityId',
            table: 'services',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'service_policies_postureCheckRoles',
        columns: [
          {
            name: 'ownerId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'value',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['ownerId', 'value'],
        foreignKeys: [
          {
            column: 'ownerId',
            table: 'service_policies',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'service_policies_postureCheckRoles_matches',
        columns: [
          {
            name: 'policyId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'entityId',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['policyId', 'entityId'],
        foreignKeys: [
          {
            column: 'policyId',
            table: 'service_policies',
            onDelete: 'cascade',
          },
          {
            column: 'entityId',
            table: 'posture_checks',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'edge_router_policies',
        columns: [
          {
            name: 'id',
            type: 'text',
            notNull: true,
          },
          {
            name: 'createdAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'updatedAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'tags',
            type: 'json',
            notNull: true,
            default: '{}',
          },
          {
            name: 'isSystem',
            type: 'integer',
            notNull: true,
            default: 0,
          },
          {
            name: 'name',
            type: 'text',
            notNull: true,
          },
          {
            name: 'semantic',
            type: 'text',
            notNull: true,
          },
          {
            name: 'identityRoles',
            type: 'json',
            notNull: false,
            default: '[]',
          },
          {
            name: 'edgeRouterRoles',
            type: 'json',
            notNull: false,
            default: '[]',
          },
        ],
        primaryKey: ['id'],
        foreignKeys: [],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'edge_router_policies_identityRoles',
        columns: [
          {
            name: 'ownerId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'value',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['ownerId', 'value'],
        foreignKeys: [
          {
            column: 'ownerId',
            table: 'edge_router_policies',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'edge_router_policies_identityRoles_matches',
        columns: [
          {
            name: 'policyId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'entityId',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['policyId', 'entityId'],
        foreignKeys: [
          {
            column: 'policyId',
            table: 'edge_router_policies',
            onDelete: 'cascade',
          },
          {
            column: 'entityId',
            table: 'identities',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'edge_router_policies_edgeRouterRoles',
        columns: [
          {
            name: 'ownerId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'value',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['ownerId', 'value'],
        foreignKeys: [
          {
            column: 'ownerId',
            table: 'edge_router_policies',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'edge_router_policies_edgeRouterRoles_matches',
        columns: [
          {
            name: 'policyId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'entityId',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['policyId', 'entityId'],
        foreignKeys: [
          {
            column: 'policyId',
            table: 'edge_router_policies',
            onDelete: 'cascade',
          },
          {
            column: 'entityId',
            table: 'edge_routers',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'service_edge_router_policies',
        columns: [
          {
            name: 'id',
            type: 'text',
            notNull: true,
          },
          {
            name: 'createdAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'updatedAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'tags',
            type: 'json',
            notNull: true,
            default: '{}',
          },
          {
            name: 'isSystem',
            type: 'integer',
            notNull: true,
            default: 0,
          },
          {
            name: 'name',
            type: 'text',
            notNull: true,
          },
          {
            name: 'semantic',
            type: 'text',
            notNull: true,
          },
          {
            name: 'serviceRoles',
            type: 'json',
            notNull: false,
            default: '[]',
          },
          {
            name: 'edgeRouterRoles',
            type: 'json',
            notNull: false,
            default: '[]',
          },
        ],
        primaryKey: ['id'],
        foreignKeys: [],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'service_edge_router_policies_serviceRoles',
        columns: [
          {
            name: 'ownerId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'value',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['ownerId', 'value'],
        foreignKeys: [
          {
            column: 'ownerId',
            table: 'service_edge_router_policies',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'service_edge_router_policies_serviceRoles_matches',
        columns: [
          {
            name: 'policyId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'entityId',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['policyId', 'entityId'],
        foreignKeys: [
          {
            column: 'policyId',
            table: 'service_edge_router_policies',
            onDelete: 'cascade',
          },
          {
            column: 'entityId',
            table: 'services',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'service_edge_router_policies_edgeRouterRoles',
        columns: [
          {
            name: 'ownerId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'value',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['ownerId', 'value'],
        foreignKeys: [
          {
            column: 'ownerId',
            table: 'service_edge_router_policies',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'service_edge_router_policies_edgeRouterRoles_matches',
        columns: [
          {
            name: 'policyId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'entityId',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['policyId', 'entityId'],
        foreignKeys: [
          {
            column: 'policyId',
            table: 'service_edge_router_policies',
            onDelete: 'cascade',
          },
          {
            column: 'entityId',
            table: 'edge_routers',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'sessions',
        columns: [
          {
            name: 'id',
            type: 'text',
            notNull: true,
          },
          {
            name: 'createdAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'updatedAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'tags',
            type: 'json',
            notNull: true,
            default: '{}',
          },
          {
            name: 'isSystem',
            type: 'integer',
            notNull: true,
            default: 0,
          },
          {
            name: 'apiSessionId',
            type: 'text',
            notNull: false,
          },
          {
            name: 'identityId',
            type: 'text',
            notNull: false,
          },
          {
            name: 'serviceId',
            type: 'text',
            notNull: false,
          },
          {
            name: 'type',
            type: 'text',
            notNull: false,
          },
          {
            name: 'servicePolicies',
            type: 'json',
            notNull: false,
            default: '[]',
          },
          {
            name: 'tokenHash',
            type: 'text',
            notNull: false,
          },
        ],
        primaryKey: ['id'],
        foreignKeys: [
          {
            column: 'apiSessionId',
            table: 'api_sessions',
            onDelete: 'cascade',
          },
          {
            column: 'identityId',
            table: 'identities',
            onDelete: 'cascade',
          },
          {
            column: 'serviceId',
            table: 'services',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'sessions_servicePolicies',
        columns: [
          {
            name: 'ownerId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'value',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['ownerId', 'value'],
        foreignKeys: [
          {
            column: 'ownerId',
            table: 'sessions',
            onDelete: 'cascade',
          },
          {
            column: 'value',
            table: 'service_policies',
            onDelete: 'set null',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'controllers',
        columns: [
          {
            name: 'id',
            type: 'text',
            notNull: true,
          },
          {
            name: 'createdAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'updatedAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'tags',
            type: 'json',
            notNull: true,
            default: '{}',
          },
          {
            name: 'isSystem',
            type: 'integer',
            notNull: true,
            default: 0,
          },
          {
            name: 'name',
            type: 'text',
            notNull: false,
          },
          {
            name: 'ctrlAddress',
            type: 'text',
            notNull: false,
          },
          {
            name: 'apiAddresses',
            type: 'json',
            notNull: false,
            default: '{}',
          },
          {
            name: 'certPem',
            type: 'text',
            notNull: false,
          },
          {
            name: 'fingerprint',
            type: 'text',
            notNull: false,
          },
          {
            name: 'lastJoinedAt',
            type: 'text',
            notNull: false,
          },
        ],
        primaryKey: ['id'],
        foreignKeys: [],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'identity_service_configs',
        columns: [
          {
            name: 'id',
            type: 'text',
            notNull: true,
          },
          {
            name: 'createdAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'updatedAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'tags',
            type: 'json',
            notNull: true,
            default: '{}',
          },
          {
            name: 'isSystem',
            type: 'integer',
            notNull: true,
            default: 0,
          },
          {
            name: 'identityId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'serviceId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'configId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'configTypeId',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['id'],
        foreignKeys: [
          {
            column: 'identityId',
            table: 'identities',
            onDelete: 'cascade',
          },
          {
            column: 'serviceId',
            table: 'services',
            onDelete: 'cascade',
          },
          {
            column: 'configId',
            table: 'configs',
            onDelete: 'restrict',
          },
          {
            column: 'configTypeId',
            table: 'config_types',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'routers',
        columns: [
          {
            name: 'id',
            type: 'text',
            notNull: true,
          },
          {
            name: 'createdAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'updatedAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'tags',
            type: 'json',
            notNull: true,
            default: '{}',
          },
          {
            name: 'isSystem',
            type: 'integer',
            notNull: true,
            default: 0,
          },
          {
            name: 'name',
            type: 'text',
            notNull: true,
          },
          {
            name: 'cost',
            type: 'integer',
            notNull: false,
            default: 0,
          },
          {
            name: 'noTraversal',
            type: 'integer',
            notNull: false,
            default: 0,
          },
          {
            name: 'disabled',
            type: 'integer',
            notNull: false,
            default: 0,
          },
          {
            name: 'configs',
            type: 'json',
            notNull: false,
            default: '[]',
          },
          {
            name: 'ctrlChanListeners',
            type: 'json',
            notNull: false,
            default: '{}',
          },
          {
            name: 'fingerprint',
            type: 'text',
            notNull: false,
          },
          {
            name: 'isVerified',
            type: 'integer',
            notNull: false,
            default: 0,
          },
          {
            name: 'unverifiedCertPem',
            type: 'text',
            notNull: false,
          },
          {
            name: 'unverifiedFingerprint',
            type: 'text',
            notNull: false,
          },
          {
            name: 'enrollmentToken',
            type: 'text',
            notNull: false,
          },
          {
            name: 'enrollmentJwt',
            type: 'text',
            notNull: false,
          },
          {
            name: 'enrollmentCreatedAt',
            type: 'text',
            notNull: false,
          },
          {
            name: 'enrollmentExpiresAt',
            type: 'text',
            notNull: false,
          },
          {
            name: 'isEdgeRouter',
            type: 'integer',
            notNull: false,
            default: 0,
          },
        ],
        primaryKey: ['id'],
        foreignKeys: [],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'routers_configs',
        columns: [
          {
            name: 'ownerId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'value',
            type: 'text',
            notNull: true,
          },
        ],
        primaryKey: ['ownerId', 'value'],
        foreignKeys: [
          {
            column: 'ownerId',
            table: 'routers',
            onDelete: 'cascade',
          },
          {
            column: 'value',
            table: 'configs',
            onDelete: 'restrict',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'terminators',
        columns: [
          {
            name: 'id',
            type: 'text',
            notNull: true,
          },
          {
            name: 'createdAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'updatedAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'tags',
            type: 'json',
            notNull: true,
            default: '{}',
          },
          {
            name: 'isSystem',
            type: 'integer',
            notNull: true,
            default: 0,
          },
          {
            name: 'service',
            type: 'text',
            notNull: true,
          },
          {
            name: 'router',
            type: 'text',
            notNull: true,
          },
          {
            name: 'binding',
            type: 'text',
            notNull: true,
          },
          {
            name: 'address',
            type: 'text',
            notNull: true,
          },
          {
            name: 'cost',
            type: 'integer',
            notNull: false,
            default: 0,
          },
          {
            name: 'precedence',
            type: 'text',
            notNull: false,
            default: 'default',
          },
          {
            name: 'identity',
            type: 'text',
            notNull: false,
            default: '',
          },
          {
            name: 'identitySecret',
            type: 'text',
            notNull: false,
          },
        ],
        primaryKey: ['id'],
        foreignKeys: [
          {
            column: 'service',
            table: 'services',
            onDelete: 'cascade',
          },
          {
            column: 'router',
            table: 'routers',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'cas',
        columns: [
          {
            name: 'id',
            type: 'text',
            notNull: true,
          },
          {
            name: 'createdAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'updatedAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'tags',
            type: 'json',
            notNull: true,
            default: '{}',
          },
          {
            name: 'isSystem',
            type: 'integer',
            notNull: true,
            default: 0,
          },
          {
            name: 'name',
            type: 'text',
            notNull: true,
          },
          {
            name: 'certPem',
            type: 'text',
            notNull: true,
          },
          {
            name: 'fingerprint',
            type: 'text',
            notNull: false,
          },
          {
            name: 'isVerified',
            type: 'integer',
            notNull: false,
            default: 0,
          },
          {
            name: 'verificationToken',
            type: 'text',
            notNull: false,
          },
          {
            name: 'isAutoCaEnrollmentEnabled',
            type: 'integer',
            notNull: true,
          },
          {
            name: 'isOttCaEnrollmentEnabled',
            type: 'integer',
            notNull: true,
          },
          {
            name: 'isAuthEnabled',
            type: 'integer',
            notNull: true,
          },
          {
            name: 'identityRoles',
            type: 'json',
            notNull: true,
            default: '[]',
          },
          {
            name: 'identityNameFormat',
            type: 'text',
            notNull: false,
            default: '[caName]-[commonName]',
          },
        ],
        primaryKey: ['id'],
        foreignKeys: [],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'external_jwt_signers',
        columns: [
          {
            name: 'id',
            type: 'text',
            notNull: true,
          },
          {
            name: 'createdAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'updatedAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'tags',
            type: 'json',
            notNull: true,
            default: '{}',
          },
          {
            name: 'isSystem',
            type: 'integer',
            notNull: true,
            default: 0,
          },
          {
            name: 'name',
            type: 'text',
            notNull: true,
          },
          {
            name: 'enabled',
            type: 'integer',
            notNull: true,
          },
          {
            name: 'issuer',
            type: 'text',
            notNull: true,
          },
          {
            name: 'audience',
            type: 'text',
            notNull: false,
          },
          {
            name: 'certPem',
            type: 'text',
            notNull: false,
          },
          {
            name: 'kid',
            type: 'text',
            notNull: false,
          },
          {
            name: 'jwksEndpoint',
            type: 'text',
            notNull: false,
          },
          {
            name: 'claimsProperty',
            type: 'text',
            notNull: false,
            default: 'sub',
          },
          {
            name: 'useExternalId',
            type: 'integer',
            notNull: false,
            default: 0,
          },
          {
            name: 'externalAuthUrl',
            type: 'text',
            notNull: false,
          },
          {
            name: 'clientId',
            type: 'text',
            notNull: false,
          },
          {
            name: 'scopes',
            type: 'json',
            notNull: false,
            default: '[]',
          },
          {
            name: 'targetToken',
            type: 'text',
            notNull: false,
            default: 'ACCESS',
          },
          {
            name: 'fingerprint',
            type: 'text',
            notNull: false,
          },
          {
            name: 'commonName',
            type: 'text',
            notNull: false,
          },
          {
            name: 'notBefore',
            type: 'text',
            notNull: false,
          },
          {
            name: 'notAfter',
            type: 'text',
            notNull: false,
          },
        ],
        primaryKey: ['id'],
        foreignKeys: [],
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'services_createdAt_idx',
        table: 'services',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'services_name_key',
        table: 'services',
        columns: ['name'],
        unique: true,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'services_roleAttributes_value_ownerId_idx',
        table: 'services_roleAttributes',
        columns: ['value', 'ownerId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'services_configs_value_ownerId_idx',
        table: 'services_configs',
        columns: ['value', 'ownerId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'edge_routers_createdAt_idx',
        table: 'edge_routers',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'edge_routers_name_key',
        table: 'edge_routers',
        columns: ['name'],
        unique: true,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'edge_routers_configs_value_ownerId_idx',
        table: 'edge_routers_configs',
        columns: ['value', 'ownerId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'edge_routers_roleAttributes_value_ownerId_idx',
        table: 'edge_routers_roleAttributes',
        columns: ['value', 'ownerId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'posture_check_types_createdAt_idx',
        table: 'posture_check_types',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'posture_checks_createdAt_idx',
        table: 'posture_checks',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'posture_checks_name_key',
        table: 'posture_checks',
        columns: ['name'],
        unique: true,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'posture_checks_roleAttributes_value_ownerId_idx',
        table: 'posture_checks_roleAttributes',
        columns: ['value', 'ownerId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'service_policies_createdAt_idx',
        table: 'service_policies',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'service_policies_name_key',
        table: 'service_policies',
        columns: ['name'],
        unique: true,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'service_policies_identityRoles_value_ownerId_idx',
        table: 'service_policies_identityRoles',
        columns: ['value', 'ownerId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'service_policies_identityRoles_matches_entityId_policyId_idx',
        table: 'service_policies_identityRoles_matches',
        columns: ['entityId', 'policyId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'service_policies_serviceRoles_value_ownerId_idx',
        table: 'service_policies_serviceRoles',
        columns: ['value', 'ownerId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'service_policies_serviceRoles_matches_entityId_policyId_idx',
        table: 'service_policies_serviceRoles_matches',
        columns: ['entityId', 'policyId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'service_policies_postureCheckRoles_value_ownerId_idx',
        table: 'service_policies_postureCheckRoles',
        columns: ['value', 'ownerId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'service_policies_postureCheckRoles_matches_entityId_po_7a1cbad3',
        table: 'service_policies_postureCheckRoles_matches',
        columns: ['entityId', 'policyId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'edge_router_policies_createdAt_idx',
        table: 'edge_router_policies',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'edge_router_policies_name_key',
        table: 'edge_router_policies',
        columns: ['name'],
        unique: true,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'edge_router_policies_identityRoles_value_ownerId_idx',
        table: 'edge_router_policies_identityRoles',
        columns: ['value', 'ownerId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'edge_router_policies_identityRoles_matches_entityId_po_dccd8089',
        table: 'edge_router_policies_identityRoles_matches',
        columns: ['entityId', 'policyId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'edge_router_policies_edgeRouterRoles_value_ownerId_idx',
        table: 'edge_router_policies_edgeRouterRoles',
        columns: ['value', 'ownerId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'edge_router_policies_edgeRouterRoles_matches_entityId__f66d6931',
        table: 'edge_router_policies_edgeRouterRoles_matches',
        columns: ['entityId', 'policyId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'service_edge_router_policies_createdAt_idx',
        table: 'service_edge_router_policies',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'service_edge_router_policies_name_key',
        table: 'service_edge_router_policies',
        columns: ['name'],
        unique: true,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'service_edge_router_policies_serviceRoles_value_ownerId_idx',
        table: 'service_edge_router_policies_serviceRoles',
        columns: ['value', 'ownerId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'service_edge_router_policies_serviceRoles_matches_enti_c457dbb7',
        table: 'service_edge_router_policies_serviceRoles_matches',
        columns: ['entityId', 'policyId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'service_edge_router_policies_edgeRouterRoles_value_ownerId_idx',
        table: 'service_edge_router_policies_edgeRouterRoles',
        columns: ['value', 'ownerId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'service_edge_router_policies_edgeRouterRoles_matches_e_9cc4f75a',
        table: 'service_edge_router_policies_edgeRouterRoles_matches',
        columns: ['entityId', 'policyId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'sessions_createdAt_idx',
        table: 'sessions',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'sessions_apiSessionId_idx',
        table: 'sessions',
        columns: ['apiSessionId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'sessions_identityId_idx',
        table: 'sessions',
        columns: ['identityId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'sessions_serviceId_idx',
        table: 'sessions',
        columns: ['serviceId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'sessions_servicePolicies_value_ownerId_idx',
        table: 'sessions_servicePolicies',
        columns: ['value', 'ownerId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'sessions_tokenHash_key',
        table: 'sessions',
        columns: ['tokenHash'],
        unique: true,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'controllers_createdAt_idx',
        table: 'controllers',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'identity_service_configs_createdAt_idx',
        table: 'identity_service_configs',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'identity_service_configs_identityId_idx',
        table: 'identity_service_configs',
        columns: ['identityId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'identity_service_configs_serviceId_idx',
        table: 'identity_service_configs',
        columns: ['serviceId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'identity_service_configs_configId_idx',
        table: 'identity_service_configs',
        columns: ['configId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'identity_service_configs_configTypeId_idx',
        table: 'identity_service_configs',
        columns: ['configTypeId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'identity_service_configs_identityId_serviceId_configTypeId_key',
        table: 'identity_service_configs',
        columns: ['identityId', 'serviceId', 'configTypeId'],
        unique: true,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'routers_createdAt_idx',
        table: 'routers',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'routers_name_key',
        table: 'routers',
        columns: ['name'],
        unique: true,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'routers_configs_value_ownerId_idx',
        table: 'routers_configs',
        columns: ['value', 'ownerId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'terminators_createdAt_idx',
        table: 'terminators',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'terminators_service_idx',
        table: 'terminators',
        columns: ['service'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'terminators_router_idx',
        table: 'terminators',
        columns: ['router'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'cas_createdAt_idx',
        table: 'cas',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'cas_name_key',
        table: 'cas',
        columns: ['name'],
        unique: true,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'external_jwt_signers_createdAt_idx',
        table: 'external_jwt_signers',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'external_jwt_signers_name_key',
        table: 'external_jwt_signers',
        columns: ['name'],
        unique: true,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'external_jwt_signers_issuer_key',
        table: 'external_jwt_signers',
        columns: ['issuer'],
        unique: true,
      },
    },
  ],
};
