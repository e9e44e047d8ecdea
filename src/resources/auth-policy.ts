import { nameField } from './common.js';
import type { FieldType, ResourceDef } from './types.js';

const bool: FieldType = { kind: 'boolean' };
const int: FieldType = { kind: 'integer' };

/** The shape of `primary` (OpenZiti's authPolicyPrimary). */
const primary: FieldType = {
  kind: 'object',
  properties: {
    cert: {
      kind: 'object',
      properties: { allowed: bool, allowExpiredCerts: bool },
      required: ['allowed', 'allowExpiredCerts'],
    },
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
      required: [
        'allowed',
        'minPasswordLength',
        'requireSpecialChar',
        'requireNumberChar',
        'requireMixedCase',
        'maxAttempts',
        'lockoutDurationMinutes',
      ],
    },
    extJwt: {
      kind: 'object',
      properties: { allowed: bool, allowedSigners: { kind: 'array', items: { kind: 'string' } } },
      required: ['allowed', 'allowedSigners'],
    },
  },
  required: ['cert', 'updb', 'extJwt'],
};

/**
 * The shape of `secondary` (authPolicySecondary). `requireExtJwtSigner` (a signer id, or null) is not declared as a
 * member: the vocabulary has no nullable member, and the behaviour checks it
 * (src/controller/model/resources/auth-policy.ts).
 */
const secondary: FieldType = { kind: 'object', properties: { requireTotp: bool }, required: ['requireTotp'] };

/** The built-in default policy's password rules: any password of 5 or more characters, no lockout. */
export const DEFAULT_UPDB_RULES = {
  allowed: true,
  minPasswordLength: 5,
  requireSpecialChar: false,
  requireNumberChar: false,
  requireMixedCase: false,
  maxAttempts: 0,
  lockoutDurationMinutes: 0,
} as const;

/**
 * How identities may authenticate. The built-in `default` policy (the one identities get unless told otherwise) may be
 * edited but not deleted; a policy an identity uses cannot be deleted (the identity's reference refuses it). The
 * behaviour (src/controller/model/resources/auth-policy.ts) checks the nested shape, normalises it as OpenZiti
 * does, and checks the signers it names; src/controller/model/auth/auth-policy-rules.ts enforces it.
 */
export const authPolicy: ResourceDef = {
  name: 'auth-policy',
  plural: 'auth-policies',
  label: 'auth policy',
  api: 'management',
  operations: ['list', 'get', 'create', 'replace', 'patch', 'delete'],
  table: 'auth_policies',
  description: 'How identities may authenticate: primary methods and secondary factors',
  builtIns: [
    {
      id: 'default',
      name: 'Default',
      primary: {
        cert: { allowed: true, allowExpiredCerts: true },
        updb: { ...DEFAULT_UPDB_RULES },
        extJwt: { allowed: true, allowedSigners: [] },
      },
      secondary: { requireTotp: false, requireExtJwtSigner: null },
    },
  ],
  // What a create body needs beyond the field types: every member of the nested objects (the generic tests' bodies).
  example: {
    primary: {
      cert: { allowed: true, allowExpiredCerts: false },
      updb: {
        allowed: true,
        minPasswordLength: 8,
        requireSpecialChar: false,
        requireNumberChar: true,
        requireMixedCase: false,
        maxAttempts: 5,
        lockoutDurationMinutes: 15,
      },
      extJwt: { allowed: false, allowedSigners: [] },
    },
    secondary: { requireTotp: false, requireExtJwtSigner: null },
  },
  fields: {
    name: nameField('Unique name of the policy'),
    primary: {
      type: primary,
      description:
        'Primary authentication: {cert: {allowed, allowExpiredCerts}, updb: {allowed, ' +
        'minPasswordLength, requireSpecialChar, requireNumberChar, requireMixedCase, ' +
        'maxAttempts, lockoutDurationMinutes}, extJwt: {allowed, allowedSigners}}',
      create: 'required',
      replace: 'required',
      patch: 'optional',
    },
    secondary: {
      type: secondary,
      description:
        'Secondary factors: {requireTotp, requireExtJwtSigner (a ' +
        'signer id whose token every request must carry, or null)}',
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
