// Recorded by `npm run schema:migration -- mfa`. Never edit a migration that has shipped: record a new one.
import type { Migration } from '../schema-diff.js';

export const migration: Migration = {
  "id": 5,
  "name": "mfa",
  "ops": [
    {
      "op": "createTable",
      "table": {
        "name": "mfas",
        "columns": [
          {
            "name": "id",
            "type": "text",
            "notNull": true
          },
          {
            "name": "createdAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "updatedAt",
            "type": "text",
            "notNull": true
          },
          {
            "name": "tags",
            "type": "json",
            "notNull": true,
            "default": "{}"
          },
          {
            "name": "isSystem",
            "type": "integer",
            "notNull": true,
            "default": 0
          },
          {
            "name": "identityId",
            "type": "text",
            "notNull": false
          },
          {
            "name": "isVerified",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "secret",
            "type": "text",
            "notNull": false
          },
          {
            "name": "recoveryCodes",
            "type": "text",
            "notNull": false
          },
          {
            "name": "recoveryHashes",
            "type": "text",
            "notNull": false,
            "default": ""
          },
          {
            "name": "recoverySalt",
            "type": "text",
            "notNull": false
          },
          {
            "name": "lastTimeStep",
            "type": "integer",
            "notNull": false,
            "default": 0
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": [
          {
            "column": "identityId",
            "table": "identities",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "mfas_createdAt_idx",
        "table": "mfas",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "mfas_identityId_key",
        "table": "mfas",
        "columns": [
          "identityId"
        ],
        "unique": true
      }
    }
  ]
};
