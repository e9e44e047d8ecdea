// Recorded by `npm run schema:migration -- write-versions`.
// Never edit a migration that has shipped: record a new one.
import type { Migration } from '../schema-diff.js';

export const migration: Migration = {
  id: 12,
  name: 'write-versions',
  ops: [
    {
      op: 'createIndex',
      index: {
        name: 'identities_write_version',
        table: 'identities',
        columns: [],
        unique: false,
        method: 'writeVersion',
        writeVersion: {
          resource: 'identity',
        },
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'authenticators_write_version',
        table: 'authenticators',
        columns: [],
        unique: false,
        method: 'writeVersion',
        writeVersion: {
          resource: 'authenticator',
        },
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'auth_policies_write_version',
        table: 'auth_policies',
        columns: [],
        unique: false,
        method: 'writeVersion',
        writeVersion: {
          resource: 'auth-policy',
        },
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'api_sessions_write_version',
        table: 'api_sessions',
        columns: [],
        unique: false,
        method: 'writeVersion',
        writeVersion: {
          resource: 'api-session',
          ignoring: ['lastActivityAt'],
        },
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'external_jwt_signers_write_version',
        table: 'external_jwt_signers',
        columns: [],
        unique: false,
        method: 'writeVersion',
        writeVersion: {
          resource: 'external-jwt-signer',
        },
      },
    },
    {
      op: 'createIndex',
      index: {
        name: 'mfas_write_version',
        table: 'mfas',
        columns: [],
        unique: false,
        method: 'writeVersion',
        writeVersion: {
          resource: 'mfa',
        },
      },
    },
  ],
};
