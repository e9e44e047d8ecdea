// Recorded by `npm run schema:migration -- shared-posture-reports`.
// Never edit a migration that has shipped: record a new one.
import type { Migration } from '../schema-diff.js';

export const migration: Migration = {
  id: 10,
  name: 'shared-posture-reports',
  ops: [
    {
      op: 'createTable',
      table: {
        name: 'posture_reports',
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
            name: 'data',
            type: 'text',
            notNull: false,
          },
          {
            name: 'failures',
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
        name: 'posture_reports_createdAt_idx',
        table: 'posture_reports',
        columns: ['createdAt'],
        unique: false,
      },
    },
  ],
};
