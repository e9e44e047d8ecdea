// Recorded by `npm run schema:migration -- identities`. Never edit a migration that has shipped: record a new one.
import type { Migration } from '../schema-diff.js';

export const migration: Migration = {
  id: 1,
  name: 'identities',
  ops: [
    {
      op: 'createTable',
      table: {
        name: 'auth_policies',
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
            name: 'primary',
            type: 'json',
            notNull: true,
          },
          {
            name: 'secondary',
            type: 'json',
            notNull: true,
          },
        ],
        primaryKey: ['id'],
        foreignKeys: [],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'identities',
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
            name: 'isAdmin',
            type: 'integer',
            notNull: true,
          },
          {
            name: 'roleAttributes',
            type: 'json',
            notNull: false,
            default: '[]',
          },
          {
            name: 'externalId',
            type: 'text',
            notNull: false,
          },
          {
            name: 'authPolicyId',
            type: 'text',
            notNull: false,
            default: 'default',
          },
          {
            name: 'appData',
            type: 'json',
            notNull: false,
            default: '{}',
          },
          {
            name: 'defaultHostingCost',
            type: 'integer',
            notNull: false,
            default: 0,
          },
          {
            name: 'defaultHostingPrecedence',
            type: 'text',
            notNull: false,
            default: 'default',
          },
          {
            name: 'serviceHostingCosts',
            type: 'json',
            notNull: false,
            default: '{}',
          },
          {
            name: 'serviceHostingPrecedences',
            type: 'json',
            notNull: false,
            default: '{}',
          },
          {
            name: 'isDefaultAdmin',
            type: 'integer',
            notNull: false,
            default: 0,
          },
          {
            name: 'disabledAt',
            type: 'text',
            notNull: false,
          },
          {
            name: 'disabledUntil',
            type: 'text',
            notNull: false,
          },
          {
            name: 'envInfo',
            type: 'json',
            notNull: false,
          },
          {
            name: 'sdkInfo',
            type: 'json',
            notNull: false,
          },
        ],
        primaryKey: ['id'],
        foreignKeys: [
          {
            column: 'authPolicyId',
            table: 'auth_policies',
            onDelete: 'restrict',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'identities_roleAttributes',
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
            table: 'identities',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'authenticators',
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
            name: 'method',
            type: 'text',
            notNull: true,
          },
          {
            name: 'username',
            type: 'text',
            notNull: false,
          },
          {
            name: 'password',
            type: 'text',
            notNull: false,
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
            name: 'isIssuedByNetwork',
            type: 'integer',
            notNull: false,
            default: 0,
          },
        ],
        primaryKey: ['id'],
        foreignKeys: [
          {
            column: 'identityId',
            table: 'identities',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'enrollments',
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
            name: 'method',
            type: 'text',
            notNull: true,
          },
          {
            name: 'expiresAt',
            type: 'text',
            notNull: true,
          },
          {
            name: 'username',
            type: 'text',
            notNull: false,
          },
          {
            name: 'token',
            type: 'text',
            notNull: false,
          },
          {
            name: 'jwt',
            type: 'text',
            notNull: false,
          },
        ],
        primaryKey: ['id'],
        foreignKeys: [
          {
            column: 'identityId',
            table: 'identities',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'identity_types',
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
        ],
        primaryKey: ['id'],
        foreignKeys: [],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'api_sessions',
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
            notNull: false,
          },
          {
            name: 'authenticatorId',
            type: 'text',
            notNull: false,
          },
          {
            name: 'ipAddress',
            type: 'text',
            notNull: false,
          },
          {
            name: 'lastActivityAt',
            type: 'text',
            notNull: false,
          },
          {
            name: 'isMfaRequired',
            type: 'integer',
            notNull: false,
            default: 0,
          },
          {
            name: 'isMfaComplete',
            type: 'integer',
            notNull: false,
            default: 0,
          },
          {
            name: 'configTypes',
            type: 'json',
            notNull: false,
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
            column: 'identityId',
            table: 'identities',
            onDelete: 'cascade',
          },
        ],
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'identities_createdAt_idx',
        table: 'identities',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'identities_name_key',
        table: 'identities',
        columns: ['name'],
        unique: true,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'identities_roleAttributes_value_ownerId_idx',
        table: 'identities_roleAttributes',
        columns: ['value', 'ownerId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'identities_externalId_key',
        table: 'identities',
        columns: ['externalId'],
        unique: true,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'identities_authPolicyId_idx',
        table: 'identities',
        columns: ['authPolicyId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'authenticators_createdAt_idx',
        table: 'authenticators',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'authenticators_identityId_idx',
        table: 'authenticators',
        columns: ['identityId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'authenticators_username_key',
        table: 'authenticators',
        columns: ['username'],
        unique: true,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'enrollments_createdAt_idx',
        table: 'enrollments',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'enrollments_identityId_idx',
        table: 'enrollments',
        columns: ['identityId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'enrollments_token_key',
        table: 'enrollments',
        columns: ['token'],
        unique: true,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'enrollments_identityId_method_key',
        table: 'enrollments',
        columns: ['identityId', 'method'],
        unique: true,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'auth_policies_createdAt_idx',
        table: 'auth_policies',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'auth_policies_name_key',
        table: 'auth_policies',
        columns: ['name'],
        unique: true,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'identity_types_createdAt_idx',
        table: 'identity_types',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'identity_types_name_key',
        table: 'identity_types',
        columns: ['name'],
        unique: true,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'api_sessions_createdAt_idx',
        table: 'api_sessions',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'api_sessions_identityId_idx',
        table: 'api_sessions',
        columns: ['identityId'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'api_sessions_tokenHash_key',
        table: 'api_sessions',
        columns: ['tokenHash'],
        unique: true,
      },
    },
  ],
};
