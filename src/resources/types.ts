/**
 * The resource catalogue's vocabulary. Every API resource is described once, as plain data, with these types;
 * the controller derives routes, validation, storage, links, filterable fields and the served OpenAPI document
 * from it, and the CLI derives its generic verbs, flags and columns. No callbacks live here: behaviour that is
 * more than storage is written as handlers in the controller and commands in the CLI.
 */

export type FieldType =
  /** `pem`: PEM text (certificates): printable ASCII and line breaks, where other strings take no line break. */
  | { kind: 'string'; minLength?: number; maxLength?: number; format?: 'date-time' | 'uri' | 'pem' }
  | { kind: 'boolean' }
  | { kind: 'integer'; minimum?: number; maximum?: number }
  | { kind: 'enum'; values: readonly string[] }
  /** Role attributes: an array of plain strings, filterable as a set (`anyOf(roleAttributes) = "x"`). */
  | { kind: 'attributes' }
  /** The tags map: values null, string, boolean or number. */
  | { kind: 'tags' }
  /**
   * A JSON object: free-form (appData), or with the members it is known to carry declared in `properties`
   * (`required` lists those always present). The read model uses them; bodies take any object, unless `checked`:
   * then a body's declared members must have their types and the required ones be present (a posture check's
   * `process`). Other members pass, as OpenZiti's generated models ignore them (its console sends some): the
   * resource's behaviour drops them.
   */
  | {
      kind: 'object';
      properties?: Readonly<Record<string, FieldType>>;
      required?: readonly string[];
      checked?: boolean;
    }
  /**
   * An array of values of one type (permissions, authQueries, a posture check's domains), with bounds on its length.
   */
  | { kind: 'array'; items: FieldType; minItems?: number; maxItems?: number }
  /** An entity reference as served, `{entity, id, name, _links}`, to an entity of `resource` (read models only). */
  | { kind: 'entityRef'; resource: string }
  /** A map from string keys to values of one type (serviceHostingCosts). */
  | { kind: 'map'; values: FieldType }
  /**
   * The id of another resource; the read model also carries an entity reference named by `as`. `onDelete` says
   * what deleting the referenced entity does: refuse with 409 naming this field (default), delete this row too,
   * or clear the field.
   */
  | {
      kind: 'ref';
      resource: string;
      as?: string;
      onDelete?: OnDelete;
      /**
       * The name OpenZiti's filters give the reference when it is neither the field nor `as` (a config's `type`):
       * a filter symbol for the id, and a prefix for the referenced entity's symbols (`type.name`) like `as`. A
       * reference with neither is that prefix under its own name (a terminator's `router.name`).
       */
      symbol?: string;
    }
  /**
   * Ids of other resources (a service's `configs`), kept in a join table: filterable as a set, and each id checked
   * to exist. Deleting a referenced entity follows `onDelete` (default: refuse with 409 naming this field).
   */
  | { kind: 'refList'; resource: string; onDelete?: OnDelete }
  /**
   * Policy roles over `resource`: `#attribute`, `@id` (or `@name`, resolved by the CLI) and `#all` (alone).
   * Unknown `@id`s are refused; deleting an entity removes its `@id` from every role set.
   */
  | { kind: 'roles'; resource: string };

export type OnDelete = 'restrict' | 'cascade' | 'clear';

/** Whether a verb's body must, may, or must not carry the field. */
export type Presence = 'required' | 'optional' | 'no';

export interface FieldDef {
  type: FieldType;
  description: string;
  create: Presence;
  replace: Presence;
  patch: 'optional' | 'no';
  /** null is accepted on write and clears the value (stored as null, or as `default` where one is given). */
  nullable?: boolean;
  /** Value stored when the field is absent on create, or cleared with null. */
  default?: unknown;
  /** Exposed as a ZitiQL symbol and in meta.filterableFields. */
  filterable?: boolean;
  /** May be used in `sort by` (only filterable scalar fields). */
  sortable?: boolean;
  /** Unique among all entities of the resource (duplicates are COULD_NOT_VALIDATE on the `field`). */
  unique?: boolean;
  /** Stored and written, never returned (hashes, secrets). */
  secret?: boolean;
  /** Server-maintained: returned, never accepted in a body. */
  readOnly?: boolean;
  /** A null value is returned as null; otherwise a null value is left out of the read model (as OpenZiti does). */
  readsNull?: boolean;
  /** Accepted in a body but not kept as a column: a handler turns it into rows of another resource. */
  virtual?: boolean;
  /** Kept as a column but never served nor accepted (token hashes, counters): the store's own bookkeeping. */
  internal?: boolean;
  /** Served, never stored: the resource's presenter computes it (`hasApiSession`, `isOnline`); always present. */
  computed?: boolean;
  /**
   * How the field is served, where the write side does not say it:
   * - `type`: the read type, when it differs from the written one (identity `type` is written as an enum name and
   *   read as an entity reference, `typeId` beside it). A virtual field with a read `type` is served too: its
   *   presenter fills it (identity `enrollment`: written as a request, read as the outstanding enrollments);
   * - `required`: in every read model, though nothing on the write side says so (a server-set field that is
   *   always set, such as an API session's `identityId`); `false`: left out of read models where it has no value,
   *   though its kind would always be served (a CA's `externalIdClaim` object, absent when the CA has none).
   */
  read?: { type?: FieldType; required?: boolean };
  /**
   * Only meaningful for some values of a discriminator field (posture checks: `domains` only when `typeId` is
   * DOMAIN): validated and required as declared when the discriminator matches; in a body whose discriminator is
   * another value it is not checked, and the resource's behaviour drops it (as OpenZiti's discriminated bodies do);
   * served only in read models of those values (the presenter's business), and never stored with a default.
   */
  when?: { field: string; in: readonly string[] };
  /**
   * The id of an entity of this resource, in a field typed as text: the store keeps a plain column (no foreign key)
   * and the resource's behaviour checks the id. The CLI takes it by name or id and the network file by name, as it
   * does a `ref` (src/cli/text-references.ts).
   */
  refersTo?: string;
}

export type Operation = 'list' | 'get' | 'create' | 'replace' | 'patch' | 'delete';

/**
 * A sub-list such as `/identities/{id}/authenticators`, served as a route and a `_link`:
 * - `foreignKey`: entities of `resource` whose field `foreignKey` is the parent id;
 * - `listField`: entities of `resource` whose id is in the parent's refList field (`/services/{id}/configs`), or,
 *   with `reverse`, entities of `resource` whose refList field holds the parent id (`/configs/{id}/services`);
 * - `policyRoles`: policies of `resource` whose role set `policyRoles` selects the parent
 *   (`/identities/{id}/service-policies`);
 * - `roles`: on a policy, the entities of `resource` its role set `roles` selects
 *   (`/service-policies/{id}/identities`);
 * - `through`: access decided by policies: entities of `resource` that the `to` role set of a `through` policy
 *   selects, where the same policy's `from` role set selects the parent (`/identities/{id}/services`). With
 *   `typeQuery`, the query parameter of that name (`policyType=dial`) keeps only policies whose `typeField` has
 *   that value (matched without regard to case);
 * OpenZiti answers most sub-lists by a filter on the listed entities without loading the parent, so an unknown
 * parent lists nothing (200, empty); `readsParent` marks those it builds from the parent itself, where an unknown
 * one is 404.
 */
export type RelationDef = {
  resource: string;
  description: string;
  /** Other words for the relation's CLI verb (`ctl identity routers` for `edge-routers`). */
  aliases?: string[];
  /** The parent is read first: an unknown one is 404 rather than an empty list (see above). */
  readsParent?: true;
} & (
  | { foreignKey: string }
  | { listField: string; reverse?: boolean }
  | { policyRoles: string }
  | { roles: string }
  | { through: string; from: string; to: string; typeQuery?: { name: string; field: string } }
);

/** How the CLI shows one column of a table. `priority: 1` columns appear only with `-o wide`. */
export interface ColumnDef {
  header: string;
  /** Dotted path into the entity, e.g. `authPolicy.name`. */
  field: string;
  priority?: 0 | 1;
}

export interface CliDef {
  /** The noun, e.g. `identity`; aliases such as `id` for short typing. */
  noun: string;
  aliases?: string[];
  /** Heading the noun is listed under in `ctl --help`, e.g. `Identities and authentication`; default `Resources`. */
  group?: string;
  columns: ColumnDef[];
  /** Fields shown first by `show`, in this order; the rest follow alphabetically. */
  showFirst?: string[];
  /**
   * Values `create` sends for required booleans whose flag is not given, where they are not false (OpenZiti's CLI
   * creates services with end-to-end encryption unless told otherwise). Named in the flag's help.
   */
  createDefaults?: Record<string, boolean>;
}

export interface ResourceDef {
  /** Singular machine name, e.g. `identity`. */
  name: string;
  /** Plural used in paths, entity references and link targets, e.g. `identities`. */
  plural: string;
  /** Human label for messages, e.g. `identity`. */
  label: string;
  /** Which API serves the standard group. */
  api: 'management' | 'client';
  operations: Operation[];
  /** SQL table holding the rows. */
  table: string;
  fields: Record<string, FieldDef>;
  /** Sub-lists served under `/{plural}/{id}/{relation}`. */
  relations?: Record<string, RelationDef>;
  /** Extra `_links` names beyond `self` and the relations (each is `./{plural}/{id}/{name}`). */
  links?: string[];
  /** The list accepts `roleFilter`/`roleSemantic` over this attributes field. */
  roleAttributes?: { field: string; listPath: string };
  /** Built-in entities may not be changed or deleted (`isSystem`). */
  hasSystemEntities?: boolean;
  /** Built-in rows present from the first start on (ensured at every start, never overwritten). */
  builtIns?: readonly Record<string, unknown>[];
  /** Extra indexes beyond those the store derives (references, filterable fields, unique fields). */
  indexes?: readonly { columns: readonly string[]; unique?: boolean; where?: Record<string, string> }[];
  /** Key of the resource's count in `/summary` (default: the camelCase plural, e.g. `servicePolicies`). */
  summaryKey?: string;
  /**
   * Values a valid create body needs beyond what its field types imply (a password, a method), merged over the
   * body the generic tests derive; `$unique` in a string becomes a fresh token each time.
   */
  example?: Record<string, unknown>;
  cli?: CliDef;
  description: string;
}
