import { nameField } from './common.js';
import type { ResourceDef } from './types.js';

/** The kinds of posture check (wire-protocol section 4). */
export const POSTURE_CHECK_TYPES = ['OS', 'PROCESS', 'PROCESS_MULTI', 'DOMAIN', 'MAC', 'MFA'] as const;

/** A posture check: a condition on a client's device that service policies can require. */
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
      description: 'Kind of check',
      create: 'required',
      replace: 'optional',
      patch: 'no',
      filterable: true,
      sortable: true,
    },
    roleAttributes: {
      type: { kind: 'attributes' },
      description: 'Attributes that policies select the check by (#attribute)',
      create: 'optional',
      replace: 'optional',
      patch: 'optional',
      nullable: true,
      default: [],
      filterable: true,
    },
  },
  roleAttributes: { field: 'roleAttributes', listPath: 'posture-check-role-attributes' },
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
