import {
  computedField,
  datetime,
  nameField,
  optionalField,
  optionalListField,
  serverField,
  terminatorCost,
} from './common.js';
import type { FieldDef } from './types.js';

/**
 * The fields every router has, edge or transit (OpenZiti keeps them in one parent store of routers; edge routers
 * add their own on top). Declared once here so that both declarations and the mirror that keeps an edge router's
 * row in the routers table (src/controller/model/resources/transit-router.ts) agree on what is shared.
 */
export function routerFields(what: string): Record<string, FieldDef> {
  return {
    name: nameField(`Unique name of the ${what} (unique among all routers)`),
    cost: optionalField(terminatorCost, 'Cost of routing through the router (0..65535)', {
      nullable: true,
      default: 0,
      filterable: true,
      sortable: true,
    }),
    noTraversal: optionalField({ kind: 'boolean' }, 'Circuits may end here but not pass through', {
      nullable: true,
      default: false,
      filterable: true,
      sortable: true,
    }),
    disabled: optionalField({ kind: 'boolean' }, 'A disabled router accepts no connections', {
      nullable: true,
      default: false,
      filterable: true,
      sortable: true,
    }),
    configs: optionalListField(
      { kind: 'refList', resource: 'config' },
      'Ids of configs for the router (such as router.link.v1)',
    ),
    ctrlChanListeners: optionalField(
      { kind: 'map', values: { kind: 'array', items: { kind: 'string', minLength: 1, maxLength: 1024 } } },
      'Control channel listener addresses the router may use, each with its groups',
      { nullable: true, default: {} },
    ),
    fingerprint: serverField(
      { kind: 'string' },
      "SHA-1 fingerprint of the router's enrolled certificate (empty until enrolled)",
      {
        filterable: true,
        read: { required: true },
      },
    ),
    isVerified: serverField({ kind: 'boolean' }, 'The router has completed enrollment', {
      filterable: true,
      sortable: true,
      default: false,
    }),
    unverifiedCertPem: serverField({ kind: 'string' }, 'A renewed certificate not yet confirmed by the router', {
      readsNull: true,
    }),
    unverifiedFingerprint: serverField({ kind: 'string' }, 'Fingerprint of the unverified certificate', {
      readsNull: true,
    }),
    enrollmentToken: serverField({ kind: 'string' }, 'Token of the outstanding enrollment (the JWT jti)', {
      readsNull: true,
    }),
    enrollmentJwt: serverField({ kind: 'string' }, 'The enrollment JWT to hand to the router', { readsNull: true }),
    enrollmentCreatedAt: serverField(datetime, 'When the outstanding enrollment was created', { readsNull: true }),
    enrollmentExpiresAt: serverField(datetime, 'When the outstanding enrollment expires', { readsNull: true }),
    isOnline: computedField(
      { kind: 'boolean' },
      'Connected to the controller now; always false here: this controller has no control channel a router could hold',
    ),
  };
}
