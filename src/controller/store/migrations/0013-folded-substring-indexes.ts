// Recorded by `npm run schema:migration -- folded-substring-indexes`.
// Never edit a migration that has shipped: record a new one.
import type { Migration } from '../schema-diff.js';

export const migration: Migration = {
  id: 13,
  name: 'folded-substring-indexes',
  ops: [
    {
      op: 'createIndex',
      index: {
        name: 'identities_name_folded_trgm',
        table: 'identities',
        columns: ['name'],
        unique: false,
        method: 'foldedSubstring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'auth_policies_name_folded_trgm',
        table: 'auth_policies',
        columns: ['name'],
        unique: false,
        method: 'foldedSubstring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'identity_types_name_folded_trgm',
        table: 'identity_types',
        columns: ['name'],
        unique: false,
        method: 'foldedSubstring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'config_types_name_folded_trgm',
        table: 'config_types',
        columns: ['name'],
        unique: false,
        method: 'foldedSubstring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'configs_name_folded_trgm',
        table: 'configs',
        columns: ['name'],
        unique: false,
        method: 'foldedSubstring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'services_name_folded_trgm',
        table: 'services',
        columns: ['name'],
        unique: false,
        method: 'foldedSubstring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'edge_routers_name_folded_trgm',
        table: 'edge_routers',
        columns: ['name'],
        unique: false,
        method: 'foldedSubstring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'posture_check_types_name_folded_trgm',
        table: 'posture_check_types',
        columns: ['name'],
        unique: false,
        method: 'foldedSubstring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'posture_checks_name_folded_trgm',
        table: 'posture_checks',
        columns: ['name'],
        unique: false,
        method: 'foldedSubstring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'service_policies_name_folded_trgm',
        table: 'service_policies',
        columns: ['name'],
        unique: false,
        method: 'foldedSubstring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'edge_router_policies_name_folded_trgm',
        table: 'edge_router_policies',
        columns: ['name'],
        unique: false,
        method: 'foldedSubstring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'service_edge_router_policies_name_folded_trgm',
        table: 'service_edge_router_policies',
        columns: ['name'],
        unique: false,
        method: 'foldedSubstring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'controllers_name_folded_trgm',
        table: 'controllers',
        columns: ['name'],
        unique: false,
        method: 'foldedSubstring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'routers_name_folded_trgm',
        table: 'routers',
        columns: ['name'],
        unique: false,
        method: 'foldedSubstring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'cas_name_folded_trgm',
        table: 'cas',
        columns: ['name'],
        unique: false,
        method: 'foldedSubstring',
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'external_jwt_signers_name_folded_trgm',
        table: 'external_jwt_signers',
        columns: ['name'],
        unique: false,
        method: 'foldedSubstring',
      },
    },
  ],
};
