// Recorded by `npm run schema:migration -- sessions-and-controllers`. Never edit a migration that has shipped: record a new one.
import type { Migration } from '../schema-diff.js';

export const migration: Migration = {
  "id": 5,
  "name": "sessions-and-controllers",
  "ops": [
    {
      "op": "createTable",
      "table": {
        "name": "sessions",
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
            "name": "apiSessionId",
            "type": "text",
            "notNull": false
          },
          {
            "name": "identityId",
            "type": "text",
            "notNull": false
          },
          {
            "name": "serviceId",
            "type": "text",
            "notNull": false
          },
          {
            "name": "type",
            "type": "text",
            "notNull": false
          },
          {
            "name": "servicePolicies",
            "type": "json",
            "notNull": false,
            "default": "[]"
          },
          {
            "name": "tokenHash",
            "type": "text",
            "notNull": false
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": [
          {
            "column": "apiSessionId",
            "table": "api_sessions",
            "onDelete": "cascade"
          },
          {
            "column": "identityId",
            "table": "identities",
            "onDelete": "cascade"
          },
          {
            "column": "serviceId",
            "table": "services",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "sessions_servicePolicies",
        "columns": [
          {
            "name": "ownerId",
            "type": "text",
            "notNull": true
          },
          {
            "name": "value",
            "type": "text",
            "notNull": true
          }
        ],
        "primaryKey": [
          "ownerId",
          "value"
        ],
        "foreignKeys": [
          {
            "column": "ownerId",
            "table": "sessions",
            "onDelete": "cascade"
          },
          {
            "column": "value",
            "table": "service_policies",
            "onDelete": "set null"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "controllers",
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
            "name": "name",
            "type": "text",
            "notNull": false
          },
          {
            "name": "ctrlAddress",
            "type": "text",
            "notNull": false
          },
          {
            "name": "apiAddresses",
            "type": "json",
            "notNull": false,
            "default": "{}"
          },
          {
            "name": "certPem",
            "type": "text",
            "notNull": false
          },
          {
            "name": "fingerprint",
            "type": "text",
            "notNull": false
          },
          {
            "name": "lastJoinedAt",
            "type": "text",
            "notNull": false
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": []
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "sessions_createdAt_idx",
        "table": "sessions",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "sessions_apiSessionId_idx",
        "table": "sessions",
        "columns": [
          "apiSessionId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "sessions_identityId_idx",
        "table": "sessions",
        "columns": [
          "identityId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "sessions_serviceId_idx",
        "table": "sessions",
        "columns": [
          "serviceId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "sessions_servicePolicies_value_ownerId_idx",
        "table": "sessions_servicePolicies",
        "columns": [
          "value",
          "ownerId"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "sessions_tokenHash_key",
        "table": "sessions",
        "columns": [
          "tokenHash"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "controllers_createdAt_idx",
        "table": "controllers",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    }
  ]
};
