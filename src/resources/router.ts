import { routerFields } from './router-fields.js';
import type { ResourceDef } from './types.js';

/**
 * Routers (OpenZiti's fabric routers): the transit routers created here, and a row for every edge router, which is
 * a router too (src/controller/model/resources/transit-router.ts keeps that row in step with the edge router).
 * Served at `/transit-routers` and at `/routers`, as OpenZiti serves both from one store: both list every router;
 * an edge router's row is changed through `/edge-routers` only (409 CAN_NOT_UPDATE_ROUTER here).
 */
export const router: ResourceDef = {
  name: 'transit-router',
  plural: 'transit-routers',
  label: 'router',
  api: 'management',
  operations: ['list', 'get', 'create', 'replace', 'patch', 'delete'],
  table: 'routers',
  description: 'A router of the fabric: transit routers, and every edge router as a router',
  // OpenZiti's /summary counts every router (edge ones included) under `routers`.
  summaryKey: 'routers',
  fields: {
    ...routerFields('router'),
    isEdgeRouter: {
      type: { kind: 'boolean' },
      description: 'The row is the router side of an edge router (kept in step with it; not changed here)',
      create: 'no',
      replace: 'no',
      patch: 'no',
      internal: true,
      default: false,
    },
  },
  cli: {
    noun: 'transit-router',
    aliases: ['transit-routers', 'tr'],
    group: 'Routers',
    columns: [
      { header: 'ID', field: 'id' },
      { header: 'Name', field: 'name' },
      { header: 'Verified', field: 'isVerified' },
      { header: 'Online', field: 'isOnline' },
      { header: 'Disabled', field: 'disabled' },
      { header: 'Cost', field: 'cost', priority: 1 },
      { header: 'Enrollment Expires', field: 'enrollmentExpiresAt', priority: 1 },
      { header: 'Created', field: 'createdAt', priority: 1 },
    ],
  },
};
