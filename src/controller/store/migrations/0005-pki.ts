// Recorded by `npm run schema:migration -- pki`. Never edit a migration that has shipped: record a new one.
import type { Migration } from '../schema-diff.js';

export const migration: Migration = {
  "id": 5,
  "name": "pki",
  "ops": [
    {
      "op": "addColumn",
      "table": "cas",
      "column": {
        "name": "externalIdClaim",
        "type": "json",
        "notNull": false
      }
    }
  ]
};
