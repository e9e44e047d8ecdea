import { resource } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';
import { withTextReferences } from '../text-references.js';
import type { NestedRef } from './nested.js';

/**
 * One kind of entity the network file holds: the resource it is, the document's top-level key, and the quirks of
 * the kind that its declaration does not say. Everything else (fields, references, roles) comes from the catalogue.
 */
export interface Kind {
  def: ResourceDef;
  /** The document's top-level key, as OpenZiti's `ops export` names it where it has the kind. */
  key: string;
  /** Rows the controller makes on its own, which a file neither declares nor removes. */
  isOwnedByController?(row: Record<string, unknown>): boolean;
  /** For a row the controller made for another entity, that entity: the row goes when it is deleted. */
  madeFor?(row: Record<string, unknown>): { resource: string; id: string } | undefined;
  /** The kind's list also serves the rows of this resource, under the same ids: those are that kind's. */
  alsoLists?: string;
  /** Fields an update is accepted with but that keep their value from the create: a change is a conflict. */
  fixedAfterCreate?: readonly string[];
  /** Fields sent on create but not compared after: the controller keeps another value for them. */
  createOnly?: readonly string[];
  /** Added to every create body (what `ctl <noun> create` sends by default and a file does not state). */
  createDefaults?: Record<string, unknown>;
  /** References inside object fields, which the catalogue types only as objects. */
  nestedRefs?: readonly NestedRef[];
  /** The enrollment JWT of a new entity, from its detail, for --jwt-dir. */
  enrollmentJwt?(detail: Record<string, unknown>): string | undefined;
  /**
   * A reference to a kind later in the order, which names this kind: the order's one cycle (a signer names its
   * enrollment auth policy, an auth policy names signers). Where what it names is created or updated in the same
   * run, the field and those of `with` that are on (switches the controller checks against what it names) are
   * written by an update in that kind's turn; a delete of what it names by --prune is preceded by an update that
   * clears it (forward.ts).
   */
  forwardRef?: { key: string; with: readonly string[] };
}

/** A row the controller marks as built in (`isSystem`) or one of the catalogue's built-in rows. */
function isBuiltIn(def: ResourceDef, row: Record<string, unknown>): boolean {
  return row.isSystem === true || (def.builtIns ?? []).some((b) => b.id === row.id);
}

function kind(name: string, key: string, quirks: Omit<Kind, 'def' | 'key'> = {}): Kind {
  const def = withTextReferences(resource(name));
  const owned = quirks.isOwnedByController;
  // A row made for another entity is the controller's too: it comes and goes with that one.
  const ownedRow = (row: Record<string, unknown>) =>
    isBuiltIn(def, row) || (owned?.(row) ?? false) || quirks.madeFor?.(row) !== undefined;
  return { ...quirks, def, key, isOwnedByController: ownedRow };
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The type of an identity as served: an entity reference (`{name: 'Router'}`) or, from older controllers, a name. */
function identityTypeName(row: Record<string, unknown>): unknown {
  const type = row.type;
  return type !== null && typeof type === 'object' ? (type as { name?: unknown }).name : type;
}

/**
 * The kinds in dependency order: each only names kinds before it (but for a signer's forward reference to its
 * enrollment auth policy), so creates go in this order and deletes in reverse. The default admin and the identities
 * routers own are the controller's; so are built-in rows.
 */
export const KINDS: readonly Kind[] = [
  kind('external-jwt-signer', 'externalJwtSigners', {
    // The controller checks the enrollments a signer turns on against its enrollment auth policy.
    forwardRef: { key: 'enrollAuthPolicy', with: ['enrollToCertEnabled', 'enrollToTokenEnabled'] },
  }),
  kind('auth-policy', 'authPolicies', {
    nestedRefs: [
      { path: ['primary', 'extJwt', 'allowedSigners'], resource: 'external-jwt-signer' },
      { path: ['secondary', 'requireExtJwtSigner'], resource: 'external-jwt-signer' },
    ],
  }),
  kind('ca', 'certificateAuthorities'),
  kind('config-type', 'configTypes'),
  kind('config', 'configs'),
  // OpenZiti's update models carry encryptionRequired, and its controller drops it.
  kind('service', 'services', { fixedAfterCreate: ['encryptionRequired'] }),
  kind('posture-check', 'postureChecks'),
  kind('edge-router', 'edgeRouters', { enrollmentJwt: (detail) => stringOrUndefined(detail.enrollmentJwt) }),
  kind('transit-router', 'transitRouters', { alsoLists: 'edge-router' }),
  kind('identity', 'identities', {
    isOwnedByController: (row) => row.isDefaultAdmin === true,
    // A tunneler-enabled edge router's identity has the router's id.
    madeFor: (row) =>
      identityTypeName(row) === 'Router' ? { resource: 'edge-router', id: String(row.id) } : undefined,
    // The controller keeps User, Device and Service identities as the Default type.
    createOnly: ['type'],
    // A one-time-token enrollment, as `ctl identity create` makes by default.
    createDefaults: { enrollment: { ott: true } },
    enrollmentJwt: (detail) => stringOrUndefined((detail.enrollment as { ott?: { jwt?: unknown } })?.ott?.jwt),
  }),
  kind('service-policy', 'servicePolicies'),
  kind('edge-router-policy', 'edgeRouterPolicies'),
  kind('service-edge-router-policy', 'serviceEdgeRouterPolicies'),
];

/**
 * The kinds a user names on the command line: by the document key, the resource name, its plural or its CLI noun
 * and aliases (`identity`, `identities`, `id`, `service-policy`). Unknown words are the caller's usage error.
 */
export function kindNamed(word: string): Kind | undefined {
  return KINDS.find((k) =>
    [k.key, k.def.name, k.def.plural, k.def.cli?.noun, ...(k.def.cli?.aliases ?? [])].includes(word),
  );
}
