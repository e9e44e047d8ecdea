// Recorded by `npm run schema:migration -- config-types-and-configs`.
// Never edit a migration that has shipped: record a new one.
import type { Migration } from '../schema-diff.js';

export const migration: Migration = {
  id: 3,
  name: 'config-types-and-configs',
  ops: [
    {
      op: 'createTable',
      table: {
        name: 'config_types',
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
            name: 'schema',
            type: 'json',
            notNull: false,
            default: '{}',
          },
          {
            name: 'target',
            type: 'text',
            notNull: false,
            default: 'service',
          },
        ],
        primaryKey: ['id'],
        foreignKeys: [],
      },
    },
    {
      op: 'createTable',
      table: {
        name: 'configs',
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
            name: 'configTypeId',
            type: 'text',
            notNull: true,
          },
          {
            name: 'data',
            type: 'json',
            notNull: true,
          },
        ],
        primaryKey: ['id'],
        foreignKeys: [
          {
            column: 'configTypeId',
            table: 'config_types',
            onDelete: 'restrict',
          },
        ],
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'config_types_createdAt_idx',
        table: 'config_types',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'config_types_name_key',
        table: 'config_types',
        columns: ['name'],
        unique: true,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'configs_createdAt_idx',
        table: 'configs',
        columns: ['createdAt'],
        unique: false,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'configs_name_key',
        table: 'configs',
        columns: ['name'],
        unique: true,
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'configs_configTypeId_idx',
        table: 'configs',
        columns: ['configTypeId'],
        unique: false,
      },
    },
  ],
};
