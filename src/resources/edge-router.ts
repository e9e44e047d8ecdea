import { computedField, optionalField, roleAttributesField, serverField } from './common.js';
import { routerFields } from './router-fields.js';
import type { ResourceDef } from './types.js';

/**
 * An edge router: where identities connect to the network; policies select it by its attributes. Every edge router is
 * also a router (it has a row in the routers table too, kept in step by
 * src/controller/model/resources/edge-router.ts), as in OpenZiti, where edge routers are a child store of routers.
 */
export const edgeRouter: ResourceDef = {
  name: 'edge-router',
  plural: 'edge-routers',
  label: 'edge router',
  api: 'management',
  operations: ['list', 'get', 'create', 'replace', 'patch', 'delete'],
  table: 'edge_routers',
  description: 'A router that identities connect to, selected by edge router policies',
  // OpenZiti's /summary counts edge routers under this key (and every router under `routers`).
  summaryKey: 'routers.edge',
  fields: {
    ...routerFields('edge router'),
    roleAttributes: roleAttributesField('router'),
    isTunnelerEnabled: optionalField(
      { kind: 'boolean' },
      'The router also acts as a tunneler (it gets an identity of type Router and a system edge router policy)',
      { default: false, filterable: true, sortable: true },
    ),
    appData: optionalField({ kind: 'object' }, 'Free-form data for applications', { nullable: true, default: {} }),
    certPem: serverField({ kind: 'string' }, "The router's enrolled client certificate (PEM)", { readsNull: true }),
    hostname: computedField(
      { kind: 'string' },
      'Host name the router reported when it connected (empty: never connected)',
    ),
    syncStatus: computedField({ kind: 'string' }, 'State of the router data model sync (UNKNOWN: never connected)'),
    supportedProtocols: computedField(
      { kind: 'map', values: { kind: 'string' } },
      'Edge listener address per protocol, as the router reported them',
    ),
    versionInfo: computedField(
      {
        kind: 'object',
        properties: {
          os: { kind: 'string' },
          arch: { kind: 'string' },
          version: { kind: 'string' },
          revision: { kind: 'string' },
          buildDate: { kind: 'string' },
        },
        required: ['os', 'arch', 'version', 'revision', 'buildDate'],
      },
      'Version the router reported when it connected (empty strings: never connected)',
    ),
  },
  relations: {
    'edge-router-policies': {
      resource: 'edge-router-policy',
      policyRoles: 'edgeRouterRoles',
      description: 'Edge router policies that select the router',
    },
    'service-edge-router-policies': {
      resource: 'service-edge-router-policy',
      policyRoles: 'edgeRouterRoles',
      description: 'Service edge router policies that select the router',
    },
    identities: {
      resource: 'identity',
      through: 'edge-router-policy',
      from: 'edgeRouterRoles',
      to: 'identityRoles',
      description: 'Identities that may connect to the router',
    },
    services: {
      resource: 'service',
      through: 'service-edge-router-policy',
      from: 'edgeRouterRoles',
      to: 'serviceRoles',
      description: 'Services the router may carry',
    },
  },
  roleAttributes: { field: 'roleAttributes', listPath: 'edge-router-role-attributes' },
  cli: {
    noun: 'router',
    aliases: ['routers', 'edge-router', 'er'],
    group: 'Routers',
    columns: [
      { header: 'ID', field: 'id' },
      { header: 'Name', field: 'name' },
      { header: 'Attributes', field: 'roleAttributes' },
      { header: 'Verified', field: 'isVerified' },
      { header: 'Online', field: 'isOnline' },
      { header: 'Tunneler', field: 'isTunnelerEnabled' },
      { header: 'Disabled', field: 'disabled' },
      { header: 'Cost', field: 'cost', priority: 1 },
      { header: 'Enrollment Expires', field: 'enrollmentExpiresAt', priority: 1 },
      { header: 'Created', field: 'createdAt', priority: 1 },
    ],
    showFirst: [
      'id',
      'name',
      'roleAttributes',
      'isVerified',
      'isOnline',
      'isTunnelerEnabled',
      'disabled',
      'cost',
      'noTraversal',
    ],
  },
};
