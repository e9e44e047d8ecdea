import type { FieldDef, FieldType } from './types.js';
import type { ResourceDef } from './types.js';

/** A reference fixed when the override is made (the override is replaced, never edited). */
function fixedRef(type: FieldType, description: string): FieldDef {
  return { type, description, create: 'required', replace: 'no', patch: 'no', filterable: true, sortable: true };
}

/**
 * An identity's own config for a service: for that identity, it stands in for the service's config of the same type
 * (OpenZiti keeps these in the identity's `serviceConfigs`). One per identity, service and config type: assigning
 * another config of that type replaces it. Going with the identity or the service; a config in use by one cannot be
 * deleted (409 naming `configId`), as OpenZiti refuses it.
 *
 * No standard group: rows are listed as the identity's `service-configs` relation and written by the identity's
 * service-config routes (src/controller/routes/management/services.ts). `api: 'client'` only keeps it out of the
 * management resources' contract test, which expects every management resource to have a list of its own.
 */
export const identityServiceConfig: ResourceDef = {
  name: 'identity-service-config',
  plural: 'identity-service-configs',
  label: 'service config of an identity',
  api: 'client',
  operations: [],
  table: 'identity_service_configs',
  description: "An identity's config for a service, in place of the service's config of the same type",
  fields: {
    identityId: fixedRef(
      { kind: 'ref', resource: 'identity', as: 'identity', onDelete: 'cascade' },
      'The identity the override is for',
    ),
    serviceId: fixedRef(
      { kind: 'ref', resource: 'service', as: 'service', onDelete: 'cascade' },
      'The service whose config is overridden',
    ),
    configId: fixedRef({ kind: 'ref', resource: 'config', as: 'config' }, 'The config used instead'),
    configTypeId: fixedRef(
      { kind: 'ref', resource: 'config-type', onDelete: 'cascade' },
      "The config's type (one override per service and type)",
    ),
  },
  indexes: [{ columns: ['identityId', 'serviceId', 'configTypeId'], unique: true }],
};
