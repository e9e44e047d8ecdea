// Recorded by `npm run schema:migration -- shared-login-attempts-and-service-update-stamps`.
// Never edit a migration that has shipped: record a new one.
import type { Migration } from '../schema-diff.js';

export const migration: Migration = {
  id: 9,
  name: 'shared-login-attempts-and-service-update-stamps',
  ops: [
    {
      op: 'createTable',
      table: {
        name: 'login_attempts',
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
            name: 'spent',
            type: 'integer',
            notNull: false,
          },
          {
            name: 'at',
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
        name: 'service_update_stamps',
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
            name: 'changedAt',
            type: 'integer',
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
        name: 'login_attempts_createdAt_idx',
        table: 'login_attempts',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'service_update_stamps_createdAt_idx',
        table: 'service_update_stamps',
        columns: ['createdAt'],
        unique: false,
      },
    },
  ],
};
