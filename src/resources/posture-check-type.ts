import { serverField } from './common.js';
import { operatingSystem } from './posture-check.js';
import type { ResourceDef } from './types.js';

// The operating systems each kind applies to, as OpenZiti's first start records them (wire-protocol section 10),
// listed in the order its store serves them (by OS name, byte order).
const android = { type: 'Android', versions: ['9', '10', '11'] };
const linux = { type: 'Linux', versions: ['4.14', '4.19', '5.4', '5.9'] };
const windows = { type: 'Windows', versions: ['Vista', '7', '8', '10', '2000'] };
const iOS = { type: 'iOS', versions: ['11', '12'] };
const macOS = { type: 'macOS', versions: ['10.15', '11.0'] };
const anyVersion = (os: { type: string }) => ({ type: os.type, versions: [] });

/**
 * The kinds of posture check, built in and read-only. MFA has no row (OpenZiti has none either), though MFA checks
 * are valid: a type describes which operating systems a kind of check applies to.
 */
export const postureCheckType: ResourceDef = {
  name: 'posture-check-type',
  plural: 'posture-check-types',
  label: 'posture check type',
  api: 'management',
  operations: ['list', 'get'],
  table: 'posture_check_types',
  description:
    'Built-in kinds of posture check (OS, PROCESS, PROCESS_MULTI, ' +
    'DOMAIN, MAC) and the operating systems each applies to',
  hasSystemEntities: true,
  builtIns: [
    { id: 'OS', name: 'Operating System Check', operatingSystems: [android, linux, windows, iOS, macOS] },
    { id: 'PROCESS', name: 'Process Check', operatingSystems: [linux, windows, macOS] },
    { id: 'DOMAIN', name: 'Windows Domain Check', operatingSystems: [windows] },
    { id: 'MAC', name: 'MAC Address Check', operatingSystems: [android, linux, windows, macOS] },
    { id: 'PROCESS_MULTI', name: 'Process Multi Check', operatingSystems: [linux, windows, macOS].map(anyVersion) },
  ],
  fields: {
    name: serverField({ kind: 'string' }, 'Name of the kind of check', {
      filterable: true,
      sortable: true,
      read: { required: true },
    }),
    operatingSystems: serverField(
      { kind: 'array', items: operatingSystem },
      'Operating systems this kind of check applies to',
      { read: { required: true } },
    ),
    version: serverField({ kind: 'string' }, 'Version of the type', { default: '1' }),
  },
  cli: {
    noun: 'posture-check-type',
    aliases: ['posture-check-types'],
    group: 'Policies and posture',
    columns: [
      { header: 'ID', field: 'id' },
      { header: 'Name', field: 'name' },
    ],
  },
};
