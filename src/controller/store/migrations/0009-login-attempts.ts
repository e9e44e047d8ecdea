// Recorded by `npm run schema:migration -- login-attempts`.
// Never edit a migration that has shipped: record a new one.
import type { Migration } from '../schema-diff.js';

export const migration: Migration = {
  "id": 9,
  "name": "login-attempts",
  "ops": [
    {
      "op": "createTable",
      "table": {
        "name": "login_attempts",
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
            "name": "spent",
            "type": "integer",
            "notNull": false
          },
          {
            "name": "at",
            "type": "integer",
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
        "name": "login_attempts_createdAt_idx",
        "table": "login_attempts",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    }
  ]
};
