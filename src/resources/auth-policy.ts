import { nameField } from './common.js';
import type { FieldType, ResourceDef } from './types.js';

const bool: FieldType = { kind: 'boolean' };
const int: FieldType = { kind: 'integer' };

/** The shape of `primary` (OpenZiti's authPolicyPrimary). */
const primary: FieldType = {
  kind: 'object',
  properties: {
    cert: { kind: 'object', properties: { allowed: bool, allowExpiredCerts: bool }, required: ['allowed', 'allowExpiredCerts'] },
    updb: {
      kind: 'object',
      properties: {
        allowed: bool,
        minPasswordLength: int,
        requireSpecialChar: bool,
        requireNumberChar: bool,
        requireMixedCase: bool,
        maxAttempts: int,
        lockoutDurationMinutes: int,
      },
      required: ['allowed', 'minPasswordLength', 'requireSpecialChar', 'requireNumberChar', 'requireMixedCase', 'maxAttempts', 'lockoutDurationMinutes'],
    },
    extJwt: { kind: 'object', properties: { allowed: bool, allowedSigners: { kind: 'array', items: { kind: 'string' } } }, required: ['allowed', 'allowedSigners'] },
  },
  required: ['cert', 'updb', 'extJwt'],
};

/** The shape of `secondary` (authPolicySecondary); `requireExtJwtSigner` (a signer id or null) is left undeclared. */
const secondary: FieldType = { kind: 'object', properties: { requireTotp: bool }, required: ['requireTotp'] };

/** Auth policies are read-only for now; the built-in `default` policy is what identities reference. */
export const authPolicy: ResourceDef = {
  name: 'auth-policy',
  plural: 'auth-policies',
  label: 'auth policy',
  api: 'management',
  operations: ['list', 'get'],
  table: 'auth_policies',
  description: 'How identities may authenticate: primary methods and secondary factors',
  hasSystemEntities: true,
  builtIns: [
    {
      id: 'default',
      name: 'Default',
      primary: {
        cert: { allowed: true, allowExpiredCerts: true },
        updb: {
          allowed: true,
          minPasswordLength: 5,
          requireSpecialChar: false,
          requireNumberChar: false,
          requireMixedCase: false,
          maxAttempts: 0,
          lockoutDurationMinutes: 0,
        },
        extJwt: { allowed: true, allowedSigners: [] },
      },
      secondary: { requireTotp: false, requireExtJwtSigner: null },
    },
  ],
  fields: {
    name: nameField('Unique name of the policy'),
    primary: {
      type: primary,
      description: 'Primary authentication: {cert, updb, extJwt} settings',
      create: 'required',
      replace: 'required',
      patch: 'optional',
    },
    secondary: {
      type: secondary,
      description: 'Secondary factors: {requireTotp, requireExtJwtSigner}',
      create: 'required',
      replace: 'required',
      patch: 'optional',
    },
  },
  cli: {
    noun: 'auth-policy',
    aliases: ['auth-policies'],
    group: 'Identities and authentication',
    columns: [
      { header: 'ID', field: 'id' },
      { header: 'Name', field: 'name' },
      { header: 'Password', field: 'primary.updb.allowed' },
      { header: 'Certificate', field: 'primary.cert.allowed' },
      { header: 'Ext JWT', field: 'primary.extJwt.allowed' },
      { header: 'TOTP Required', field: 'secondary.requireTotp' },
    ],
  },
};
