// Recorded by `npm run schema:migration -- one-password-per-identity`.
// Never edit a migration that has shipped: record a new one.
import type { Migration } from '../schema-diff.js';

export const migration: Migration = {
  id: 2,
  name: 'one-password-per-identity',
  ops: [
    {
      op: 'createIndex',
      index: {
        name: 'authenticators_identityId_key',
        table: 'authenticators',
        columns: ['identityId'],
        unique: true,
        where: {
          method: 'updb',
        },
      },
    },
  ],
};
