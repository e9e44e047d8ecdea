import { computedField, createOnly, datetime, serverField } from './common.js';
import type { ResourceDef } from './types.js';

/** Outstanding enrollments: a one-time token (and its JWT) that lets an identity obtain a credential. */
export const enrollment: ResourceDef = {
  name: 'enrollment',
  plural: 'enrollments',
  label: 'enrollment',
  api: 'management',
  operations: ['list', 'get', 'create', 'delete'],
  table: 'enrollments',
  description:
    'A one-time enrollment of an identity (ott, ottca or updb); redeemed once at /enroll, refreshed with a new token',
  fields: {
    identityId: createOnly(
      { kind: 'ref', resource: 'identity', as: 'identity', onDelete: 'cascade' },
      'The identity that enrolls',
    ),
    method: createOnly({ kind: 'enum', values: ['ott', 'ottca', 'updb'] }, 'Enrollment method'),
    expiresAt: createOnly(datetime, 'When the token stops being accepted'),
    username: {
      // No minimum beyond one character, as in OpenZiti (its 4 apply to the default admin of the first start).
      type: { kind: 'string', minLength: 1, maxLength: 100 },
      description: 'Username the updb enrollment creates',
      create: 'optional',
      replace: 'no',
      patch: 'no',
      nullable: true,
    },
    caId: {
      // The id of a CA, kept as a plain column: the enrollments table predates CAs, and a foreign key added later
      // would mean rebuilding it. The handler checks the CA exists; deleting a CA deletes its enrollments.
      type: { kind: 'string', minLength: 1, maxLength: 1024 },
      description:
        'The certificate authority of an ottca enrollment: the enrolling client presents a certificate it issued',
      create: 'optional',
      replace: 'no',
      patch: 'no',
      nullable: true,
      filterable: true,
    },
    token: serverField({ kind: 'string' }, 'The one-time token (the JWT `jti`)', {
      filterable: true,
      unique: true,
      read: { required: true },
    }),
    jwt: serverField({ kind: 'string' }, 'The signed enrollment JWT to hand to the enrolling client', {
      read: { required: true },
    }),
    details: computedField({ kind: 'object' }, 'Method-specific details (none yet)'),
  },
  // One outstanding enrollment per method and identity (a second is 409 ENROLLMENT_EXISTS).
  indexes: [{ columns: ['identityId', 'method'], unique: true }],
  example: { method: 'ott', expiresAt: '2099-01-01T00:00:00.000Z' },
  cli: {
    noun: 'enrollment',
    aliases: ['enrollments'],
    group: 'Identities and authentication',
    columns: [
      { header: 'ID', field: 'id' },
      { header: 'Identity', field: 'identity.name' },
      { header: 'Method', field: 'method' },
      { header: 'Expires', field: 'expiresAt' },
      { header: 'Username', field: 'username', priority: 1 },
    ],
  },
};
