import { computedField, datetime, serverField } from './common.js';
import type { FieldType, ResourceDef } from './types.js';

/** `{"edge-client": [{url, version}], "edge-management": [...]}`: where each API of a controller is served. */
const apiAddresses: FieldType = {
  kind: 'map',
  values: {
    kind: 'array',
    items: {
      kind: 'object',
      properties: { url: { kind: 'string' }, version: { kind: 'string' } },
      required: ['url', 'version'],
    },
  },
};

/**
 * The controllers of the network. Each controller writes its own row when it starts (name and fingerprint of its
 * server certificate, its API addresses, when it started) and keeps `lastSeenAt` fresh with a heartbeat
 * (src/controller/cluster/membership.ts): alone, the list holds one row; several controllers on one database (PKI
 * shared with --pki-key-file) each have theirs. Rows are never written through the API.
 * No CLI noun: `ctl controller` runs the local controller, and `ctl controller list` reads this list.
 */
export const controller: ResourceDef = {
  name: 'controller',
  plural: 'controllers',
  label: 'controller',
  api: 'management',
  operations: ['list', 'get'],
  table: 'controllers',
  description: 'A controller of the network',
  fields: {
    name: serverField({ kind: 'string' }, 'Common name of the controller server certificate', {
      filterable: true,
      sortable: true,
      read: { required: true },
    }),
    ctrlAddress: serverField(
      { kind: 'string' },
      'Control channel address for routers; null: this controller has no control channel',
      {
        readsNull: true,
      },
    ),
    apiAddresses: serverField(apiAddresses, 'Where each API is served, by API binding', { default: {} }),
    certPem: serverField({ kind: 'string' }, 'The server certificate (PEM)', { read: { required: true } }),
    fingerprint: serverField(
      { kind: 'string' },
      'SHA-1 fingerprint of the server certificate (lowercase hex), as OpenZiti gives it',
      {
        filterable: true,
        read: { required: true },
      },
    ),
    lastJoinedAt: serverField(datetime, 'When the controller last started', {
      filterable: true,
      sortable: true,
      read: { required: true },
    }),
    lastSeenAt: serverField(datetime, "When the controller's heartbeat last said it serves", {
      filterable: true,
      sortable: true,
      read: { required: true },
    }),
    isOnline: computedField(
      { kind: 'boolean' },
      'The controller answering, or another whose heartbeat was seen in the last 15 seconds',
    ),
  },
};
