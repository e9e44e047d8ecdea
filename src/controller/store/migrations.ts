import type { Database } from 'better-sqlite3';

/**
 * Versioned schema migrations. Each runs once, in order, inside one transaction with the bump of
 * `PRAGMA user_version`, so a crash mid-migration leaves the previous version intact. Never edit a migration
 * that has shipped: add a new one. `schema.test.ts` checks that the tables match the catalogue.
 */
export interface Migration {
  version: number;
  description: string;
  up(db: Database, now: string): void;
}

const common = `"createdAt" TEXT NOT NULL, "updatedAt" TEXT NOT NULL, "tags" TEXT NOT NULL DEFAULT '{}', "isSystem" INTEGER NOT NULL DEFAULT 0`;

// Entity tables are WITHOUT ROWID: lists are ordered by the text id (OpenZiti's default order), which then is the
// table's own order instead of an index walk with a table lookup per row (a `contains` over 100,000 identities
// takes half the time).

const DEFAULT_AUTH_POLICY = {
  primary: {
    cert: { allowed: true, allowExpiredCerts: true },
    updb: {
      allowed: true,
      minPasswordLength: 5,
      requireSpecialChar: false,
      requireNumberChar: false,
      requireMixedCase: false,
      maxAttempts: 0,
      lockoutDurationMinutes: 0,
    },
    extJwt: { allowed: true, allowedSigners: [] },
  },
  secondary: { requireTotp: false, requireExtJwtSigner: null },
};

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    description: 'identities, authenticators, enrollments, auth policies, identity types, API sessions',
    up(db, now) {
      db.exec(`
        CREATE TABLE identity_types (
          "id" TEXT PRIMARY KEY, "name" TEXT NOT NULL UNIQUE, ${common}) WITHOUT ROWID;
        CREATE TABLE auth_policies (
          "id" TEXT PRIMARY KEY, "name" TEXT NOT NULL UNIQUE, "primary" TEXT NOT NULL, "secondary" TEXT NOT NULL, ${common}) WITHOUT ROWID;
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
          ${common}) WITHOUT ROWID;
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
          ${common}) WITHOUT ROWID;
        CREATE INDEX authenticators_identityId ON authenticators("identityId");
        CREATE TABLE enrollments (
          "id" TEXT PRIMARY KEY,
          "identityId" TEXT NOT NULL REFERENCES identities("id") ON DELETE CASCADE,
          "method" TEXT NOT NULL,
          "expiresAt" TEXT NOT NULL,
          "username" TEXT,
          "token" TEXT NOT NULL UNIQUE,
          "jwt" TEXT NOT NULL,
          ${common},
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
          ${common}) WITHOUT ROWID;
        CREATE INDEX api_sessions_identityId ON api_sessions("identityId");
        CREATE INDEX api_sessions_lastActivityAt ON api_sessions("lastActivityAt");
      `);
      const system = (table: string, columns: Record<string, unknown>) => {
        const names = ['id', 'createdAt', 'updatedAt', 'isSystem', ...Object.keys(columns).filter((c) => c !== 'id')];
        const values = [columns.id, now, now, 1, ...Object.entries(columns).filter(([c]) => c !== 'id').map(([, v]) => v)];
        db.prepare(`INSERT INTO ${table} (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`).run(
          ...values,
        );
      };
      system('identity_types', { id: 'Default', name: 'Default' });
      system('identity_types', { id: 'Router', name: 'Router' });
      system('auth_policies', {
        id: 'default',
        name: 'Default',
        primary: JSON.stringify(DEFAULT_AUTH_POLICY.primary),
        secondary: JSON.stringify(DEFAULT_AUTH_POLICY.secondary),
      });
    },
  },
];

export function migrate(db: Database, now: () => string, migrations: Migration[] = MIGRATIONS): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (const m of migrations) {
    if (m.version <= current) continue;
    db.transaction(() => {
      m.up(db, now());
      db.pragma(`user_version = ${m.version}`);
    })();
  }
  return db.pragma('user_version', { simple: true }) as number;
}
