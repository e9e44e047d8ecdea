// Recorded by `npm run schema:migration -- mfa-and-pki`. Never edit a migration that has shipped: record a new one.
import type { Migration } from '../schema-diff.js';

export const migration: Migration = {
  id: 5,
  name: 'mfa-and-pki',
  ops: [
    {
      op: 'addColumn',
      table: 'authenticators',
      column: {
        name: 'isExtendRequested',
        type: 'integer',
        notNull: false,
        default: 0,
      },
    },
    {
      op: 'addColumn',
      table: 'authenticators',
      column: {
        name: 'isKeyRollRequested',
        type: 'integer',
        notNull: false,
        default: 0,
      },
    },
    {
      op: 'addColumn',
      table: 'authenticators',
      column: {
        name: 'extendRequestedAt',
        type: 'text',
        notNull: false,
      },
    },
    {
      op: 'addColumn',
      table: 'authenticators',
      column: {
        name: 'lastExtendRolledKeys',
        type: 'integer',
        notNull: false,
        default: 0,
      },
    },
    {
      op: 'addColumn',
      table: 'cas',
      column: {
        name: 'externalIdClaim',
        type: 'json',
        notNull: false,
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'mfas',
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
            name: 'isVerified',
            type: 'integer',
            notNull: false,
            default: 0,
          },
          {
            name: 'secret',
            type: 'text',
            notNull: false,
          },
          {
            name: 'recoveryCodes',
            type: 'text',
            notNull: false,
            default: '',
          },
          {
            name: 'lastTimeStep',
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
        name: 'api_session_certificates',
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
            name: 'subject',
            type: 'text',
            notNull: false,
          },
          {
            name: 'fingerprint',
            type: 'text',
            notNull: false,
          },
          {
            name: 'validFrom',
            type: 'text',
            notNull: false,
          },
          {
            name: 'validTo',
            type: 'text',
            notNull: false,
          },
          {
            name: 'certificate',
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
        ],
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'mfas_createdAt_idx',
        table: 'mfas',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'mfas_identityId_key',
        table: 'mfas',
        columns: ['identityId'],
        unique: true,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'api_session_certificates_createdAt_idx',
        table: 'api_session_certificates',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'api_session_certificates_apiSessionId_idx',
        table: 'api_session_certificates',
        columns: ['apiSessionId'],
        unique: false,
      },
    },
  ],
};
