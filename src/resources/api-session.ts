import { datetime, serverField } from './common.js';
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
    identityId: serverField({ kind: 'ref', resource: 'identity', as: 'identity', onDelete: 'cascade' }, 'The authenticated identity', {
      filterable: true,
      sortable: true,
    }),
    authenticatorId: serverField({ kind: 'string' }, 'The authenticator used', { filterable: true }),
    ipAddress: serverField({ kind: 'string' }, 'Address the session was created from', { filterable: true, sortable: true }),
    lastActivityAt: serverField(datetime, 'Last authenticated request', { filterable: true, sortable: true }),
    isMfaRequired: serverField({ kind: 'boolean' }, 'A second factor is required', { filterable: true, default: false }),
    isMfaComplete: serverField({ kind: 'boolean' }, 'The second factor was given', { filterable: true, default: false }),
    configTypes: serverField({ kind: 'attributes' }, 'Config types the client asked for'),
    tokenHash: { ...serverField({ kind: 'string' }, 'SHA-256 of the session token (the token itself is never stored)'), internal: true, unique: true },
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
