import { computedField, serverField } from './common.js';
import type { FieldType, ResourceDef } from './types.js';

/** One edge router a session may connect through, as OpenZiti serves it (`sessionEdgeRouter`). */
const sessionEdgeRouter: FieldType = {
  kind: 'object',
  properties: {
    name: { kind: 'string' },
    hostname: { kind: 'string' },
    isOnline: { kind: 'boolean' },
    cost: { kind: 'integer' },
    noTraversal: { kind: 'boolean' },
    disabled: { kind: 'boolean' },
    syncStatus: { kind: 'string' },
    supportedProtocols: { kind: 'map', values: { kind: 'string' } },
    urls: { kind: 'map', values: { kind: 'string' } },
  },
  required: [
    'name',
    'hostname',
    'isOnline',
    'cost',
    'noTraversal',
    'disabled',
    'syncStatus',
    'supportedProtocols',
    'urls',
  ],
};

/**
 * A service session: an API session's permission to dial or bind one service, which edge routers check. Created on
 * the client API (`POST /sessions`, the client API's part); listed, read and deleted here. It lives as long as its
 * API session (deleted with it), and goes when its service or identity goes, as in OpenZiti (its service reference
 * cascades). The token, like an API session's, is stored only as a hash and never served on these lists.
 */
export const session: ResourceDef = {
  name: 'session',
  plural: 'sessions',
  label: 'session',
  api: 'management',
  operations: ['list', 'get', 'delete'],
  table: 'sessions',
  description: "A service session: an API session's permission to dial or bind a service",
  fields: {
    apiSessionId: serverField(
      { kind: 'ref', resource: 'api-session', symbol: 'apiSession', onDelete: 'cascade' },
      'The API session it belongs to (ends with it)',
      { filterable: true, sortable: true, read: { required: true } },
    ),
    identityId: serverField(
      { kind: 'ref', resource: 'identity', symbol: 'identity', onDelete: 'cascade' },
      'The identity of the API session',
      { filterable: true, sortable: true, read: { required: true } },
    ),
    serviceId: serverField(
      { kind: 'ref', resource: 'service', as: 'service', onDelete: 'cascade' },
      'The service dialed or bound (the session goes with it)',
      {
        filterable: true,
        sortable: true,
        read: { required: true },
      },
    ),
    type: serverField({ kind: 'enum', values: ['Dial', 'Bind'] }, 'Dial (connect to the service) or Bind (host it)', {
      filterable: true,
      sortable: true,
      read: { required: true },
    }),
    servicePolicies: serverField(
      { kind: 'refList', resource: 'service-policy', onDelete: 'clear' },
      'The service policies that granted the session when it was created',
      {
        default: [],
        read: { type: { kind: 'array', items: { kind: 'entityRef', resource: 'service-policy' } }, required: true },
      },
    ),
    // API sessions have no name: the reference is served with an empty one, as OpenZiti does.
    apiSession: computedField({ kind: 'entityRef', resource: 'api-session' }, 'The API session it belongs to'),
    token: computedField(
      { kind: 'string' },
      'The session token: empty here, only its hash is stored (its creator saw it once)',
    ),
    edgeRouters: computedField(
      { kind: 'array', items: sessionEdgeRouter },
      'Edge routers the identity may use for the service, by policy',
    ),
    tokenHash: {
      ...serverField({ kind: 'string' }, 'SHA-256 of the session token (the token itself is never stored)'),
      internal: true,
      unique: true,
    },
  },
  cli: {
    noun: 'session',
    aliases: ['sessions'],
    group: 'Identities and authentication',
    columns: [
      { header: 'ID', field: 'id' },
      { header: 'Type', field: 'type' },
      { header: 'Service', field: 'service.name' },
      { header: 'Identity', field: 'identityId' },
      { header: 'API Session', field: 'apiSessionId', priority: 1 },
      { header: 'Created', field: 'createdAt', priority: 1 },
    ],
  },
};
