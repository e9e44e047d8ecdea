import { computedField, datetime, serverField } from './common.js';
import type { ResourceDef } from './types.js';

/**
 * API sessions, as the management API lists them. The token is stored only as a hash and is never
 * returned here (only its owner sees it, at authentication and on /current-api-session).
 */
export const apiSession: ResourceDef = {
  name: 'api-session',
  plural: 'api-sessions',
  label: 'API session',
  api: 'management',
  operations: ['list', 'get', 'delete'],
  table: 'api_sessions',
  description: 'An authenticated session of an identity',
  fields: {
    identityId: serverField(
      { kind: 'ref', resource: 'identity', as: 'identity', onDelete: 'cascade' },
      'The authenticated identity',
      {
        filterable: true,
        sortable: true,
        read: { required: true },
      },
    ),
    authenticatorId: serverField({ kind: 'string' }, 'The authenticator used', {
      filterable: true,
      read: { required: true },
    }),
    ipAddress: serverField({ kind: 'string' }, 'Address the session was created from', {
      filterable: true,
      sortable: true,
      read: { required: true },
    }),
    lastActivityAt: serverField(datetime, 'Last authenticated request', {
      filterable: true,
      sortable: true,
      read: { required: true },
    }),
    isMfaRequired: serverField({ kind: 'boolean' }, 'A second factor is required', {
      filterable: true,
      default: false,
    }),
    isMfaComplete: serverField({ kind: 'boolean' }, 'The second factor was given', {
      filterable: true,
      default: false,
    }),
    configTypes: serverField({ kind: 'attributes' }, 'Config types the client asked for'),
    token: computedField(
      { kind: 'string' },
      'The session token: empty here, shown only to its owner (authentication, /current-api-session)',
    ),
    authQueries: computedField(
      { kind: 'array', items: { kind: 'object' } },
      'Further authentication the session must pass (a TOTP query while MFA is required and not yet passed)',
    ),
    cachedLastActivityAt: computedField(datetime, 'Last authenticated request (as lastActivityAt)'),
    cachedUpdatedAt: computedField(datetime, 'Last update (as updatedAt)'),
    isCertExtendable: computedField({ kind: 'boolean' }, 'The session could extend its certificate (always false)'),
    isCertExtendRequested: computedField({ kind: 'boolean' }, 'A certificate extension was requested (always false)'),
    isCertKeyRollRequested: computedField({ kind: 'boolean' }, 'A key roll was requested (always false)'),
    improperClientCertChain: computedField(
      { kind: 'boolean' },
      'The client certificate chain was incomplete (always false)',
    ),
    expiresAt: computedField(datetime, 'When the session expires without further activity'),
    expirationSeconds: computedField({ kind: 'integer' }, 'Session lifetime after the last activity, in seconds'),
    tokenHash: {
      ...serverField({ kind: 'string' }, 'SHA-256 of the session token (the token itself is never stored)'),
      internal: true,
      unique: true,
    },
  },
  cli: {
    noun: 'api-session',
    aliases: ['api-sessions'],
    group: 'Identities and authentication',
    columns: [
      { header: 'ID', field: 'id' },
      { header: 'Identity', field: 'identity.name' },
      { header: 'IP', field: 'ipAddress' },
      { header: 'Last Activity', field: 'lastActivityAt' },
      { header: 'Created', field: 'createdAt', priority: 1 },
    ],
  },
};
