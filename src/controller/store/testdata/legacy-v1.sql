-- The schema of the first release (PRAGMA user_version 1), kept to test that such a database upgrades in place.
CREATE TABLE identity_types (
          "id" TEXT PRIMARY KEY, "name" TEXT NOT NULL UNIQUE, "createdAt" TEXT NOT NULL, "updatedAt" TEXT NOT NULL, "tags" TEXT NOT NULL DEFAULT '{}', "isSystem" INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
        CREATE TABLE auth_policies (
          "id" TEXT PRIMARY KEY, "name" TEXT NOT NULL UNIQUE, "primary" TEXT NOT NULL, "secondary" TEXT NOT NULL, "createdAt" TEXT NOT NULL, "updatedAt" TEXT NOT NULL, "tags" TEXT NOT NULL DEFAULT '{}', "isSystem" INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
        CREATE TABLE identities (
          "id" TEXT PRIMARY KEY,
          "name" TEXT NOT NULL UNIQUE,
          "type" TEXT NOT NULL REFERENCES identity_types("id"),
          "isAdmin" INTEGER NOT NULL,
          "isDefaultAdmin" INTEGER NOT NULL DEFAULT 0,
          "roleAttributes" TEXT NOT NULL DEFAULT '[]',
          "externalId" TEXT UNIQUE,
          "authPolicyId" TEXT NOT NULL REFERENCES auth_policies("id"),
          "appData" TEXT NOT NULL DEFAULT '{}',
          "defaultHostingCost" INTEGER NOT NULL DEFAULT 0,
          "defaultHostingPrecedence" TEXT NOT NULL DEFAULT 'default',
          "serviceHostingCosts" TEXT NOT NULL DEFAULT '{}',
          "serviceHostingPrecedences" TEXT NOT NULL DEFAULT '{}',
          "disabledAt" TEXT,
          "disabledUntil" TEXT,
          "envInfo" TEXT NOT NULL DEFAULT '{}',
          "sdkInfo" TEXT NOT NULL DEFAULT '{}',
          "createdAt" TEXT NOT NULL, "updatedAt" TEXT NOT NULL, "tags" TEXT NOT NULL DEFAULT '{}', "isSystem" INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
        CREATE INDEX identities_type ON identities("type");
        CREATE INDEX identities_authPolicyId ON identities("authPolicyId");
        CREATE INDEX identities_createdAt ON identities("createdAt");
        CREATE TABLE identities_roleAttributes (
          "ownerId" TEXT NOT NULL REFERENCES identities("id") ON DELETE CASCADE,
          "value" TEXT NOT NULL,
          PRIMARY KEY ("ownerId", "value")) WITHOUT ROWID;
        CREATE INDEX identities_roleAttributes_value ON identities_roleAttributes("value", "ownerId");
        CREATE TABLE authenticators (
          "id" TEXT PRIMARY KEY,
          "identityId" TEXT NOT NULL REFERENCES identities("id") ON DELETE CASCADE,
          "method" TEXT NOT NULL,
          "username" TEXT UNIQUE,
          "password" TEXT,
          "certPem" TEXT,
          "fingerprint" TEXT UNIQUE,
          "isIssuedByNetwork" INTEGER NOT NULL DEFAULT 0,
          "createdAt" TEXT NOT NULL, "updatedAt" TEXT NOT NULL, "tags" TEXT NOT NULL DEFAULT '{}', "isSystem" INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
        CREATE INDEX authenticators_identityId ON authenticators("identityId");
        CREATE TABLE enrollments (
          "id" TEXT PRIMARY KEY,
          "identityId" TEXT NOT NULL REFERENCES identities("id") ON DELETE CASCADE,
          "method" TEXT NOT NULL,
          "expiresAt" TEXT NOT NULL,
          "username" TEXT,
          "token" TEXT NOT NULL UNIQUE,
          "jwt" TEXT NOT NULL,
          "createdAt" TEXT NOT NULL, "updatedAt" TEXT NOT NULL, "tags" TEXT NOT NULL DEFAULT '{}', "isSystem" INTEGER NOT NULL DEFAULT 0,
          UNIQUE ("identityId", "method")) WITHOUT ROWID;
        CREATE TABLE api_sessions (
          "id" TEXT PRIMARY KEY,
          "identityId" TEXT NOT NULL REFERENCES identities("id") ON DELETE CASCADE,
          "tokenHash" TEXT NOT NULL UNIQUE,
          "authenticatorId" TEXT NOT NULL,
          "ipAddress" TEXT NOT NULL,
          "lastActivityAt" TEXT NOT NULL,
          "isMfaRequired" INTEGER NOT NULL DEFAULT 0,
          "isMfaComplete" INTEGER NOT NULL DEFAULT 0,
          "configTypes" TEXT NOT NULL DEFAULT '[]',
          "createdAt" TEXT NOT NULL, "updatedAt" TEXT NOT NULL, "tags" TEXT NOT NULL DEFAULT '{}', "isSystem" INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
        CREATE INDEX api_sessions_identityId ON api_sessions("identityId");
        CREATE INDEX api_sessions_lastActivityAt ON api_sessions("lastActivityAt");
INSERT INTO identity_types (id, name, createdAt, updatedAt, isSystem) VALUES ('Default', 'Default', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 1), ('Router', 'Router', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 1);
INSERT INTO auth_policies (id, name, "primary", secondary, createdAt, updatedAt, isSystem) VALUES ('default', 'Default', '{"updb":{"allowed":true}}', '{"requireTotp":false}', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 1);
INSERT INTO identities (id, name, type, isAdmin, roleAttributes, authPolicyId, createdAt, updatedAt) VALUES ('legacy1', 'legacy-laptop', 'Default', 0, '["sales"]', 'default', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
INSERT INTO identities_roleAttributes (ownerId, value) VALUES ('legacy1', 'sales');
PRAGMA user_version = 1;
