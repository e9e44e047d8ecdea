// Recorded by `npm run schema:migration -- controllers-and-shared-pki`. Never edit a migration that has shipped: record
// a new one.
import type { Migration } from '../schema-diff.js';

export const migration: Migration = {
  id: 8,
  name: 'controllers-and-shared-pki',
  ops: [
    {
      op: 'addColumn',
      table: 'controllers',
      column: {
        name: 'lastSeenAt',
        type: 'text',
        notNull: false,
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'controller_pki',
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
            name: 'rootCertPem',
            type: 'text',
            notNull: false,
          },
          {
            name: 'intermediateCertPem',
            type: 'text',
            notNull: false,
          },
          {
            name: 'previousIntermediateCertPems',
            type: 'json',
            notNull: false,
          },
          {
            name: 'trustDomain',
            type: 'text',
            notNull: false,
          },
          {
            name: 'sealedKeys',
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
        name: 'controller_pki_createdAt_idx',
        table: 'controller_pki',
        columns: ['createdAt'],
        unique: false,
      },
    },
  ],
};
