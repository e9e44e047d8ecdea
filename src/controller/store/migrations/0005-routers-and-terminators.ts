// Recorded by `npm run schema:migration -- routers-and-terminators`. Never edit a migration that has shipped: record a new one.
import type { Migration } from '../schema-diff.js';

export const migration: Migration = {
  "id": 5,
  "name": "routers-and-terminators",
  "ops": [
    {
      "op": "addColumn",
      "table": "edge_routers",
      "column": {
        "name": "configs",
        "type": "json",
        "notNull": false,
        "default": "[]"
      }
    },
    {
      "op": "addColumn",
      "table": "edge_routers",
      "column": {
        "name": "ctrlChanListeners",
        "type": "json",
        "notNull": false,
        "default": "{}"
      }
    },
    {
      "op": "addColumn",
      "table": "edge_routers",
      "column": {
        "name": "fingerprint",
        "type": "text",
        "notNull": false
      }
    },
    {
      "op": "addColumn",
      "table": "edge_routers",
      "column": {
        "name": "isVerified",
        "type": "integer",
        "notNull": false,
        "default": 0
      }
    },
    {
      "op": "addColumn",
      "table": "edge_routers",
      "column": {
        "name": "unverifiedCertPem",
        "type": "text",
        "notNull": false
      }
    },
    {
      "op": "addColumn",
      "table": "edge_routers",
      "column": {
        "name": "unverifiedFingerprint",
        "type": "text",
        "notNull": false
      }
    },
    {
      "op": "addColumn",
      "table": "edge_routers",
      "column": {
        "name": "enrollmentToken",
        "type": "text",
        "notNull": false
      }
    },
    {
      "op": "addColumn",
      "table": "edge_routers",
      "column": {
        "name": "enrollmentJwt",
        "type": "text",
        "notNull": false
      }
    },
    {
      "op": "addColumn",
      "table": "edge_routers",
      "column": {
        "name": "enrollmentCreatedAt",
        "type": "text",
        "notNull": false
      }
    },
    {
      "op": "addColumn",
      "table": "edge_routers",
      "column": {
        "name": "enrollmentExpiresAt",
        "type": "text",
        "notNull": false
      }
    },
    {
      "op": "addColumn",
      "table": "edge_routers",
      "column": {
        "name": "certPem",
        "type": "text",
        "notNull": false
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "edge_routers_configs",
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
            "table": "edge_routers",
            "onDelete": "cascade"
          },
          {
            "column": "value",
            "table": "configs",
            "onDelete": "restrict"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "routers",
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
            "name": "cost",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "noTraversal",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "disabled",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "configs",
            "type": "json",
            "notNull": false,
            "default": "[]"
          },
          {
            "name": "ctrlChanListeners",
            "type": "json",
            "notNull": false,
            "default": "{}"
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
            "name": "unverifiedCertPem",
            "type": "text",
            "notNull": false
          },
          {
            "name": "unverifiedFingerprint",
            "type": "text",
            "notNull": false
          },
          {
            "name": "enrollmentToken",
            "type": "text",
            "notNull": false
          },
          {
            "name": "enrollmentJwt",
            "type": "text",
            "notNull": false
          },
          {
            "name": "enrollmentCreatedAt",
            "type": "text",
            "notNull": false
          },
          {
            "name": "enrollmentExpiresAt",
            "type": "text",
            "notNull": false
          },
          {
            "name": "isEdgeRouter",
            "type": "integer",
            "notNull": false,
            "default": 0
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": []
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "routers_configs",
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
            "table": "routers",
            "onDelete": "cascade"
          },
          {
            "column": "value",
            "table": "configs",
            "onDelete": "restrict"
          }
        ]
      }
    },
    {
      "op": "createTable",
      "table": {
        "name": "terminators",
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
            "name": "service",
            "type": "text",
            "notNull": true
          },
          {
            "name": "router",
            "type": "text",
            "notNull": true
          },
          {
            "name": "binding",
            "type": "text",
            "notNull": true
          },
          {
            "name": "address",
            "type": "text",
            "notNull": true
          },
          {
            "name": "cost",
            "type": "integer",
            "notNull": false,
            "default": 0
          },
          {
            "name": "precedence",
            "type": "text",
            "notNull": false,
            "default": "default"
          },
          {
            "name": "identity",
            "type": "text",
            "notNull": false,
            "default": ""
          },
          {
            "name": "identitySecret",
            "type": "text",
            "notNull": false
          }
        ],
        "primaryKey": [
          "id"
        ],
        "foreignKeys": [
          {
            "column": "service",
            "table": "services",
            "onDelete": "cascade"
          },
          {
            "column": "router",
            "table": "routers",
            "onDelete": "cascade"
          }
        ]
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "edge_routers_configs_value_ownerId_idx",
        "table": "edge_routers_configs",
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
        "name": "routers_createdAt_idx",
        "table": "routers",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "routers_name_key",
        "table": "routers",
        "columns": [
          "name"
        ],
        "unique": true
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "routers_configs_value_ownerId_idx",
        "table": "routers_configs",
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
        "name": "terminators_createdAt_idx",
        "table": "terminators",
        "columns": [
          "createdAt"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "terminators_service_idx",
        "table": "terminators",
        "columns": [
          "service"
        ],
        "unique": false
      }
    },
    {
      "op": "createIndex",
      "index": {
        "name": "terminators_router_idx",
        "table": "terminators",
        "columns": [
          "router"
        ],
        "unique": false
      }
    }
  ]
};
