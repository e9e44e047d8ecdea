// The kinds of policy `ctl policy` speaks of, each a catalogue resource (and, for service policies, a type), and the
// flags that fill its role sets. Everything else about them (fields, columns, paths) comes from the catalogue.
import { resource } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';
import { UsageError } from '../../console/errors.js';
import { unknownWordDetails } from '../similar.js';

export interface PolicyKind {
  kind: string;
  def: ResourceDef;
  /** Fixed fields of the kind: a dial policy is a service policy of type Dial. */
  fixed: Record<string, string>;
  /** Role flag (`identities`) -> the role set it fills (`identityRoles`). */
  roles: Record<string, string>;
  summary: string;
}

const servicePolicy = resource('service-policy');
const serviceRoles = { identities: 'identityRoles', services: 'serviceRoles', 'posture-checks': 'postureCheckRoles' };

export const KINDS: readonly PolicyKind[] = [
  {
    kind: 'dial',
    def: servicePolicy,
    fixed: { type: 'Dial' },
    roles: serviceRoles,
    summary: 'identities may use (dial) services',
  },
  {
    kind: 'bind',
    def: servicePolicy,
    fixed: { type: 'Bind' },
    roles: serviceRoles,
    summary: 'identities may host (bind) services',
  },
  {
    kind: 'router',
    def: resource('edge-router-policy'),
    fixed: {},
    roles: { identities: 'identityRoles', routers: 'edgeRouterRoles' },
    summary: 'identities may connect to edge routers',
  },
  {
    kind: 'service-router',
    def: resource('service-edge-router-policy'),
    fixed: {},
    roles: { services: 'serviceRoles', routers: 'edgeRouterRoles' },
    summary: 'services may be reached through edge routers',
  },
];

export const KIND_NAMES = KINDS.map((k) => k.kind);

export function kindNamed(name: string): PolicyKind {
  const kind = KINDS.find((k) => k.kind === name);
  if (!kind) throw unknownKind(name);
  return kind;
}

/** The refusal of a word that names no policy kind, with the kinds it is like. */
export function unknownKind(name: string): UsageError {
  return new UsageError(`unknown policy kind '${name}'`, unknownWordDetails(name, 'kinds', KIND_NAMES));
}

/** The kind an entity of a policy resource is (a service policy by its type). */
export function kindOf(def: ResourceDef, entity: Record<string, unknown>): PolicyKind {
  return KINDS.find((k) => k.def === def && Object.entries(k.fixed).every(([f, v]) => entity[f] === v))!;
}

/** The policy resources, once each (dial and bind share one). */
export const POLICY_RESOURCES: readonly ResourceDef[] = [...new Set(KINDS.map((k) => k.def))];

/** The resource whose entities a role set selects (`identityRoles` -> identity). */
export function roleTarget(def: ResourceDef, field: string): ResourceDef {
  const type = def.fields[field].type;
  if (type.kind !== 'roles') throw new Error(`${def.name}.${field} is not a role set`);
  return resource(type.resource);
}
