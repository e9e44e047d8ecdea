// Recorded by `npm run schema:migration -- posture-checks-of-every-kind`. Never edit a migration that has shipped: record a new one.
import type { Migration } from '../schema-diff.js';

export const migration: Migration = {
  "id": 5,
  "name": "posture-checks-of-every-kind",
  "ops": [
    {
      "op": "createTable",
      "table": {
        "name": "posture_check_types",
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
            "name": "operatingSystems",
            "type": "json",
            "notNull": false
          },
          {
            "name": "version",
            "type": "text",
            "notNull": false,
            "default": "1"
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": []
      }
    },
    {
      "op": "addColumn",
      "table": "posture_checks",
      "column": {
        "name": "version",
        "type": "integer",
        "notNull": false,
        "default": 1
      }
    },
    {
      "op": "addColumn",
      "table": "posture_checks",
      "column": {
        "name": "operatingSystems",
        "type": "json",
        "notNull": false
      }
    },
    {
      "op": "addColumn",
      "table": "posture_checks",
      "column": {
        "name": "process",
        "type": "json",
        "notNull": false
      }
    },
    {
      "op": "addColumn",
      "table": "posture_checks",
      "column": {
        "name": "semantic",
        "type": "text",
        "notNull": false
      }
    },
    {
      "op": "addColumn",
      "table": "posture_checks",
      "column": {
        "name": "processes",
        "type": "json",
        "notNull": false
      }
    },
    {
      "op": "addColumn",
      "table": "posture_checks",
      "column": {
        "name": "domains",
        "type": "json",
        "notNull": false
      }
    },
    {
      "op": "addColumn",
      "table": "posture_checks",
      "column": {
        "name": "macAddresses",
        "type": "json",
        "notNull": false
      }
    },
    {
      "op": "addColumn",
      "table": "posture_checks",
      "column": {
        "name": "timeoutSeconds",
        "type": "integer",
        "notNull": false
      }
    },
    {
      "op": "addColumn",
      "table": "posture_checks",
      "column": {
        "name": "promptOnWake",
        "type": "integer",
        "notNull": false
      }
    },
    {
      "op": "addColumn",
      "table": "posture_checks",
      "column": {
        "name": "promptOnUnlock",
        "type": "integer",
        "notNull": false
      }
    },
    {
      "op": "addColumn",
      "table": "posture_checks",
      "column": {
        "name": "ignoreLegacyEndpoints",
        "type": "integer",
        "notNull": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "posture_check_types_createdAt_idx",
        "table": "posture_check_types",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    }
  ]
};
