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
        "name": "pendingCertPem",
        "type": "text",
        "notNull": false
      }
    },
    {
      "op": "addColumn",
      "table": "authenticators",
      "column": {
        "name": "pendingFingerprint",
        "type": "text",
        "notNull": false
      }
    },
    {
      "op": "addColumn",
      "table": "enrollments",
      "column": {
        "name": "caId",
        "type": "text",
        "notNull": false
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "cas",
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
            "notNull": true
          },
          {
            "name": "certPem",
            "type": "text",
            "notNull": true
          },
          {
            "name": "fingerprint",
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
            "name": "verificationToken",
            "type": "text",
            "notNull": false
          },
          {
            "name": "isAutoCaEnrollmentEnabled",
            "type": "integer",
            "notNull": true
          },
          {
            "name": "isOttCaEnrollmentEnabled",
            "type": "integer",
            "notNull": true
          },
          {
            "name": "isAuthEnabled",
            "type": "integer",
            "notNull": true
          },
          {
            "name": "identityRoles",
            "type": "json",
            "notNull": true,
            "default": "[]"
          },
          {
            "name": "identityNameFormat",
            "type": "text",
            "notNull": false,
            "default": "[caName]-[commonName]"
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
        "name": "cas_createdAt_idx",
        "table": "cas",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "cas_name_key",
        "table": "cas",
        "columns": [
          "name"
        ],
        "unique": true
      }
    }
  ]
};
