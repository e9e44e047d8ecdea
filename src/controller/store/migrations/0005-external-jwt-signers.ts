// Recorded by `npm run schema:migration -- external-jwt-signers`. Never edit a migration that has shipped: record a new one.
import type { Migration } from '../schema-diff.js';

export const migration: Migration = {
  "id": 5,
  "name": "external-jwt-signers",
  "ops": [
    {
      "op": "createTable",
      "table": {
        "name": "external_jwt_signers",
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
            "name": "enabled",
            "type": "integer",
            "notNull": true
          },
          {
            "name": "issuer",
            "type": "text",
            "notNull": true
          },
          {
            "name": "audience",
            "type": "text",
            "notNull": false
          },
          {
            "name": "certPem",
            "type": "text",
            "notNull": false
          },
          {
            "name": "kid",
            "type": "text",
            "notNull": false
          },
          {
            "name": "jwksEndpoint",
            "type": "text",
            "notNull": false
          },
          {
            "name": "claimsProperty",
            "type": "text",
            "notNull": false,
            "default": "sub"
          },
          {
            "name": "useExternalId",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "externalAuthUrl",
            "type": "text",
            "notNull": false
          },
          {
            "name": "clientId",
            "type": "text",
            "notNull": false
          },
          {
            "name": "scopes",
            "type": "json",
            "notNull": false,
            "default": "[]"
          },
          {
            "name": "targetToken",
            "type": "text",
            "notNull": false,
            "default": "ACCESS"
          },
          {
            "name": "fingerprint",
            "type": "text",
            "notNull": false
          },
          {
            "name": "commonName",
            "type": "text",
            "notNull": false
          },
          {
            "name": "notBefore",
            "type": "text",
            "notNull": false
          },
          {
            "name": "notAfter",
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
        "name": "external_jwt_signers_createdAt_idx",
        "table": "external_jwt_signers",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "external_jwt_signers_name_key",
        "table": "external_jwt_signers",
        "columns": [
          "name"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "external_jwt_signers_issuer_key",
        "table": "external_jwt_signers",
        "columns": [
          "issuer"
        ],
        "unique": true
      }
    }
  ]
};
