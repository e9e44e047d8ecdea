// Recorded by `npm run schema:migration -- pki`. Never edit a migration that has shipped: record a new one.
import type { Migration } from '../schema-diff.js';

export const migration: Migration = {
  "id": 5,
  "name": "pki",
  "ops": [
    {
      "op": "addColumn",
      "table": "authenticators",
      "column": {
        "name": "isExtendRequested",
        "type": "integer",
        "notNull": false,
        "default": 0
      }
    },
    {
      "op": "addColumn",
      "table": "authenticators",
      "column": {
        "name": "isKeyRollRequested",
        "type": "integer",
        "notNull": false,
        "default": 0
      }
    },
    {
      "op": "addColumn",
      "table": "authenticators",
      "column": {
        "name": "extendRequestedAt",
        "type": "text",
        "notNull": false
      }
    },
    {
      "op": "addColumn",
      "table": "authenticators",
      "column": {
        "name": "lastExtendRolledKeys",
        "type": "integer",
        "notNull": false,
        "default": 0
      }
    },
    {
      "op": "addColumn",
      "table": "cas",
      "column": {
        "name": "externalIdClaim",
        "type": "json",
        "notNull": false
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "api_session_certificates",
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
            "name": "subject",
            "type": "text",
            "notNull": false
          },
          {
            "name": "fingerprint",
            "type": "text",
            "notNull": false
          },
          {
            "name": "validFrom",
            "type": "text",
            "notNull": false
          },
          {
            "name": "validTo",
            "type": "text",
            "notNull": false
          },
          {
            "name": "certificate",
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
          }
        ]
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "api_session_certificates_createdAt_idx",
        "table": "api_session_certificates",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "api_session_certificates_apiSessionId_idx",
        "table": "api_session_certificates",
        "columns": [
          "apiSessionId"
        ],
        "unique": false
      }
    }
  ]
};
