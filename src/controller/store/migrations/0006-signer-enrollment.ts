// Recorded by `npm run schema:migration -- signer-enrollment`.
// Never edit a migration that has shipped: record a new one.
import type { Migration } from '../schema-diff.js';

export const migration: Migration = {
  id: 6,
  name: 'signer-enrollment',
  ops: [
    {
      op: 'addColumn',
      table: 'external_jwt_signers',
      column: {
        name: 'enrollToCertEnabled',
        type: 'integer',
        notNull: false,
        default: 0,
      },
    },
    {
      op: 'addColumn',
      table: 'external_jwt_signers',
      column: {
        name: 'enrollToTokenEnabled',
        type: 'integer',
        notNull: false,
        default: 0,
      },
    },
    {
      op: 'addColumn',
      table: 'external_jwt_signers',
      column: {
        name: 'enrollNameClaimsSelector',
        type: 'text',
        notNull: false,
        default: '/sub',
      },
    },
    {
      op: 'addColumn',
      table: 'external_jwt_signers',
      column: {
        name: 'enrollAttributeClaimsSelector',
        type: 'text',
        notNull: false,
      },
    },
    {
      op: 'addColumn',
      table: 'external_jwt_signers',
      column: {
        name: 'enrollAuthPolicyId',
        type: 'text',
        notNull: false,
        default: 'default',
      },
    },
  ],
};
