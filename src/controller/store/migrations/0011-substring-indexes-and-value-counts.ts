// Recorded by `npm run schema:migration -- substring-indexes-and-value-counts`.
// Never edit a migration that has shipped: record a new one.
import type { Migration } from '../schema-diff.js';

export const migration: Migration = {
  id: 11,
  name: 'substring-indexes-and-value-counts',
  ops: [
    {
      op: 'dropIndex',
      name: 'identities_name_trgm',
    },
    {
      op: 'dropIndex',
      name: 'auth_policies_name_trgm',
    },
    {
      op: 'dropIndex',
      name: 'identity_types_name_trgm',
    },
    {
      op: 'dropIndex',
      name: 'config_types_name_trgm',
    },
    {
      op: 'dropIndex',
      name: 'configs_name_trgm',
    },
    {
      op: 'dropIndex',
      name: 'services_name_trgm',
    },
    {
      op: 'dropIndex',
      name: 'edge_routers_name_trgm',
    },
    {
      op: 'dropIndex',
      name: 'posture_check_types_name_trgm',
    },
    {
      op: 'dropIndex',
      name: 'posture_checks_name_trgm',
    },
    {
      op: 'dropIndex',
      name: 'service_policies_name_trgm',
    },
    {
      op: 'dropIndex',
      name: 'edge_router_policies_name_trgm',
    },
    {
      op: 'dropIndex',
      name: 'service_edge_router_policies_name_trgm',
    },
    {
      op: 'dropIndex',
      name: 'controllers_name_trgm',
    },
    {
      op: 'dropIndex',
      name: 'routers_name_trgm',
    },
    {
      op: 'dropIndex',
      name: 'cas_name_trgm',
    },
    {
      op: 'dropIndex',
      name: 'external_jwt_signers_name_trgm',
    },
    {
      op: 'createIndex',
      index: {
        name: 'identities_name_trgm',
        table: 'identities',
        columns: ['name'],
        unique: false,
        method: 'substring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'identities_roleAttributes_value_counts',
        table: 'identities_roleAttributes',
        columns: ['value'],
        unique: false,
        method: 'valueCounts',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'auth_policies_name_trgm',
        table: 'auth_policies',
        columns: ['name'],
        unique: false,
        method: 'substring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'identity_types_name_trgm',
        table: 'identity_types',
        columns: ['name'],
        unique: false,
        method: 'substring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'config_types_name_trgm',
        table: 'config_types',
        columns: ['name'],
        unique: false,
        method: 'substring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'configs_name_trgm',
        table: 'configs',
        columns: ['name'],
        unique: false,
        method: 'substring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'services_name_trgm',
        table: 'services',
        columns: ['name'],
        unique: false,
        method: 'substring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'services_roleAttributes_value_counts',
        table: 'services_roleAttributes',
        columns: ['value'],
        unique: false,
        method: 'valueCounts',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'edge_routers_name_trgm',
        table: 'edge_routers',
        columns: ['name'],
        unique: false,
        method: 'substring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'edge_routers_roleAttributes_value_counts',
        table: 'edge_routers_roleAttributes',
        columns: ['value'],
        unique: false,
        method: 'valueCounts',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'posture_check_types_name_trgm',
        table: 'posture_check_types',
        columns: ['name'],
        unique: false,
        method: 'substring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'posture_checks_name_trgm',
        table: 'posture_checks',
        columns: ['name'],
        unique: false,
        method: 'substring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'posture_checks_roleAttributes_value_counts',
        table: 'posture_checks_roleAttributes',
        columns: ['value'],
        unique: false,
        method: 'valueCounts',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'service_policies_name_trgm',
        table: 'service_policies',
        columns: ['name'],
        unique: false,
        method: 'substring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'edge_router_policies_name_trgm',
        table: 'edge_router_policies',
        columns: ['name'],
        unique: false,
        method: 'substring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'service_edge_router_policies_name_trgm',
        table: 'service_edge_router_policies',
        columns: ['name'],
        unique: false,
        method: 'substring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'controllers_name_trgm',
        table: 'controllers',
        columns: ['name'],
        unique: false,
        method: 'substring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'routers_name_trgm',
        table: 'routers',
        columns: ['name'],
        unique: false,
        method: 'substring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'cas_name_trgm',
        table: 'cas',
        columns: ['name'],
        unique: false,
        method: 'substring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'external_jwt_signers_name_trgm',
        table: 'external_jwt_signers',
        columns: ['name'],
        unique: false,
        method: 'substring',
      },
    },
  ],
};
