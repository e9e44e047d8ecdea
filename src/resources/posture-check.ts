import { nameField, roleAttributesField, SEMANTICS } from './common.js';
import type { FieldDef, FieldType, ResourceDef } from './types.js';

/** The kinds of posture check (wire-protocol section 4). */
export const POSTURE_CHECK_TYPES = ['OS', 'PROCESS', 'PROCESS_MULTI', 'DOMAIN', 'MAC', 'MFA'] as const;
export type PostureCheckKind = (typeof POSTURE_CHECK_TYPES)[number];

/** Operating systems as clients report them (Swagger `osType`). */
export const OS_TYPES = ['Windows', 'WindowsServer', 'Android', 'iOS', 'Linux', 'macOS'] as const;

/** How many entries a posture check's lists may hold (OpenZiti sets no bound; a body is capped anyway). */
const LIST_MAX = 256;
const strings = (minItems?: number): FieldType => ({
  kind: 'array',
  items: { kind: 'string', minLength: 1 },
  maxItems: LIST_MAX,
  ...(minItems ? { minItems } : {}),
});

/**
 * `{type, versions}`: an operating system and the versions of it that pass (OS checks; posture check types list
 * them too). Each version is a semantic-version range as OpenZiti reads them: `10.0.19041`, `>=13.0.0`, `11.x`.
 */
export const operatingSystem: FieldType = {
  kind: 'object',
  properties: { type: { kind: 'enum', values: OS_TYPES }, versions: strings() },
  required: ['type', 'versions'],
  checked: true,
};

/** A process that must run: the executable's path on one OS, optionally its accepted hashes and signer. */
const processMatch: FieldType = {
  kind: 'object',
  properties: {
    osType: { kind: 'enum', values: OS_TYPES },
    path: { kind: 'string', minLength: 1 },
    hashes: strings(),
    signerFingerprint: { kind: 'string' },
  },
  required: ['osType', 'path'],
  checked: true,
};

/** One process of a PROCESS_MULTI check: like a PROCESS check's, with several accepted signers. */
const processMultiMatch: FieldType = {
  kind: 'object',
  properties: {
    osType: { kind: 'enum', values: OS_TYPES },
    path: { kind: 'string', minLength: 1 },
    hashes: strings(),
    signerFingerprints: strings(),
  },
  required: ['osType', 'path'],
  checked: true,
};

/**
 * A field of some kinds of check only: required on create and replace as `presence` says, optional on patch,
 * refused in a body of another kind and left out of that kind's read model.
 */
function kindField(
  kinds: readonly PostureCheckKind[],
  type: FieldType,
  description: string,
  presence: 'required' | 'optional',
  extra: Partial<FieldDef> = {},
): FieldDef {
  return {
    type,
    description,
    create: presence,
    replace: presence,
    patch: 'optional',
    when: { field: 'typeId', in: kinds },
    ...extra,
  };
}

/**
 * A posture check: a condition on a client's device that service policies can require. One resource for every
 * kind: the kind (`typeId`) is fixed at creation and says which of the kind fields the check carries (the Swagger's
 * discriminated union); src/controller/model/resources/posture-check.ts holds what is more than the declaration.
 */
export const postureCheck: ResourceDef = {
  name: 'posture-check',
  plural: 'posture-checks',
  label: 'posture check',
  api: 'management',
  operations: ['list', 'get', 'create', 'replace', 'patch', 'delete'],
  table: 'posture_checks',
  description: "A condition on a client's device (OS, process, domain, MAC address, MFA) that service policies require",
  fields: {
    name: nameField('Unique name of the posture check'),
    typeId: {
      type: { kind: 'enum', values: POSTURE_CHECK_TYPES },
      // OpenZiti's patch requires it (it picks the body's shape); our patch may leave it out. Either way it never
      // changes: a body naming another kind is refused.
      description: 'Kind of check; fixed at creation (a replace or patch may repeat it, never change it)',
      create: 'required',
      replace: 'optional',
      patch: 'optional',
      filterable: true,
      sortable: true,
    },
    version: {
      type: { kind: 'integer' },
      description: 'Version of the check (always 1, as in OpenZiti)',
      create: 'no',
      replace: 'no',
      patch: 'no',
      readOnly: true,
      default: 1,
    },
    roleAttributes: roleAttributesField('check'),
    operatingSystems: kindField(
      ['OS'],
      { kind: 'array', items: operatingSystem, minItems: 1, maxItems: OS_TYPES.length },
      'OS: the operating systems that pass, each with the versions that pass (none: any version)',
      'required',
    ),
    process: kindField(['PROCESS'], processMatch, 'PROCESS: the process that must run', 'required'),
    semantic: kindField(
      ['PROCESS_MULTI'],
      { kind: 'enum', values: SEMANTICS },
      'PROCESS_MULTI: AllOf (every process must run) or AnyOf (one is enough)',
      'required',
    ),
    processes: kindField(
      ['PROCESS_MULTI'],
      { kind: 'array', items: processMultiMatch, minItems: 1, maxItems: LIST_MAX },
      'PROCESS_MULTI: the processes',
      'required',
    ),
    domains: kindField(['DOMAIN'], strings(1), 'DOMAIN: the Windows domains that pass', 'required'),
    macAddresses: kindField(
      ['MAC'],
      strings(1),
      'MAC: the MAC addresses that pass (any one present on the device)',
      'required',
    ),
    // MFA options have no declared default: the behaviour fills -1/false into MFA checks only, so that the other
    // kinds hold null there, and `promptOnWake = false` finds MFA checks only, as in OpenZiti.
    timeoutSeconds: kindField(
      ['MFA'],
      { kind: 'integer' },
      'MFA: seconds an MFA code stays good (-1, or 0 or less: no timeout; default -1)',
      'optional',
      { nullable: true },
    ),
    promptOnWake: kindField(
      ['MFA'],
      { kind: 'boolean' },
      'MFA: ask for a code again when the device wakes (default false)',
      'optional',
      { nullable: true, filterable: true },
    ),
    promptOnUnlock: kindField(
      ['MFA'],
      { kind: 'boolean' },
      'MFA: ask for a code again when the device is unlocked (default false)',
      'optional',
      { nullable: true, filterable: true },
    ),
    ignoreLegacyEndpoints: kindField(
      ['MFA'],
      { kind: 'boolean' },
      'MFA: let clients that cannot prompt pass on MFA at login alone (default false)',
      'optional',
      { nullable: true },
    ),
  },
  roleAttributes: { field: 'roleAttributes', listPath: 'posture-check-role-attributes' },
  example: { typeId: 'MFA' },
  cli: {
    noun: 'posture-check',
    aliases: ['posture-checks', 'pc'],
    group: 'Policies and posture',
    columns: [
      { header: 'ID', field: 'id' },
      { header: 'Name', field: 'name' },
      { header: 'Type', field: 'typeId' },
      { header: 'Attributes', field: 'roleAttributes' },
      { header: 'Created', field: 'createdAt', priority: 1 },
    ],
  },
};
