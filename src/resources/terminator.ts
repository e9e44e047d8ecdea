import { computedField, optionalField, TERMINATOR_PRECEDENCES, terminatorCost } from './common.js';
import type { FieldDef, ResourceDef } from './types.js';

/** The service or router a terminator belongs to: written as an id, read as an entity reference, gone with it. */
function ownerRef(resource: string, description: string): FieldDef {
  return {
    type: { kind: 'ref', resource, onDelete: 'cascade' },
    description,
    read: { type: { kind: 'entityRef', resource } },
    create: 'required',
    replace: 'required',
    patch: 'optional',
    filterable: true,
    sortable: true,
  };
}

/**
 * A terminator: where circuits for a service leave the network (a router, and an address the router's binding
 * understands). Written with `service` and `router` ids, read with entity references to both and their ids beside.
 * Deleting the service or the router deletes its terminators, as OpenZiti does.
 */
export const terminator: ResourceDef = {
  name: 'terminator',
  plural: 'terminators',
  label: 'terminator',
  api: 'management',
  operations: ['list', 'get', 'create', 'replace', 'patch', 'delete'],
  table: 'terminators',
  description: 'Where circuits of a service leave the network: a router and an address its binding understands',
  fields: {
    service: ownerRef('service', 'Id of the service the terminator serves'),
    router: ownerRef('transit-router', 'Id of the router (edge or transit) the terminator is on'),
    binding: {
      type: { kind: 'string', minLength: 1, maxLength: 1024 },
      description: 'The router binding that handles the address (edge, transport, tunnel, ...)',
      create: 'required',
      replace: 'required',
      patch: 'optional',
      filterable: true,
      sortable: true,
    },
    address: {
      type: { kind: 'string', minLength: 1, maxLength: 4096 },
      description: 'Where the binding sends circuits (e.g. tcp:host:port, or an edge hosting token)',
      create: 'required',
      replace: 'required',
      patch: 'optional',
      filterable: true,
      sortable: true,
    },
    cost: optionalField(terminatorCost, 'Static cost the terminator strategy adds (0..65535)', {
      default: 0,
      filterable: true,
      sortable: true,
    }),
    precedence: {
      type: { kind: 'enum', values: TERMINATOR_PRECEDENCES },
      description: 'default, required (preferred over default) or failed (used only when nothing else is left)',
      create: 'optional',
      replace: 'optional',
      patch: 'optional',
      default: 'default',
      filterable: true,
      sortable: true,
    },
    identity: {
      type: { kind: 'string', maxLength: 1024 },
      description: 'Instance id for addressable terminators (dial a specific host); set at creation only',
      create: 'optional',
      replace: 'no',
      patch: 'no',
      default: '',
      filterable: true,
      sortable: true,
    },
    identitySecret: {
      type: { kind: 'string', maxLength: 4096 },
      description:
        'Base64 secret that proves a later terminator with the same identity belongs to the same host; never served',
      create: 'optional',
      replace: 'no',
      patch: 'no',
      secret: true,
    },
    serviceId: computedField({ kind: 'string' }, 'Id of the service'),
    routerId: computedField({ kind: 'string' }, 'Id of the router'),
    dynamicCost: computedField(
      terminatorCost,
      'Cost as the strategy sees it now: the static cost (no circuits run through this controller)',
    ),
  },
  cli: {
    noun: 'terminator',
    aliases: ['terminators', 'term'],
    group: 'Routers',
    columns: [
      { header: 'ID', field: 'id' },
      { header: 'Service', field: 'service.name' },
      { header: 'Router', field: 'router.name' },
      { header: 'Binding', field: 'binding' },
      { header: 'Address', field: 'address' },
      { header: 'Identity', field: 'identity', priority: 1 },
      { header: 'Cost', field: 'cost', priority: 1 },
      { header: 'Precedence', field: 'precedence', priority: 1 },
    ],
  },
};
