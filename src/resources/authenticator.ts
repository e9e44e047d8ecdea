import { createOnly, datetime, password, serverField, username } from './common.js';
import type { ResourceDef } from './types.js';

/**
 * Authenticators: how one identity proves who it is. Only `updb` (username and password) can be created by an
 * admin for now; `cert` authenticators come from enrollment. Create, replace and patch are handlers, because the
 * method decides which fields apply and passwords are hashed.
 */
export const authenticator: ResourceDef = {
  name: 'authenticator',
  plural: 'authenticators',
  label: 'authenticator',
  api: 'management',
  operations: ['list', 'get', 'create', 'replace', 'patch', 'delete'],
  table: 'authenticators',
  description: 'A credential of an identity: a username and password (updb) or a certificate (cert)',
  fields: {
    identityId: createOnly(
      { kind: 'ref', resource: 'identity', as: 'identity', onDelete: 'cascade' },
      'The identity the authenticator belongs to',
    ),
    method: createOnly(
      { kind: 'enum', values: ['updb', 'cert'] },
      'updb (username and password) or cert (client certificate)',
    ),
    username: {
      type: username,
      description: 'Login name (updb)',
      create: 'optional',
      replace: 'required',
      patch: 'optional',
      filterable: true,
      sortable: true,
      unique: true,
    },
    password: {
      type: password,
      description: 'Password (updb); stored only as a memory-hard hash',
      create: 'optional',
      replace: 'required',
      patch: 'optional',
      secret: true,
    },
    certPem: {
      type: { kind: 'string', minLength: 1, maxLength: 65536 },
      description: 'Client certificate (cert)',
      create: 'optional',
      replace: 'no',
      patch: 'no',
    },
    fingerprint: serverField({ kind: 'string' }, 'SHA-1 fingerprint of the certificate (cert)', { filterable: true }),
    // A certificate issued by extension and not yet verified (extend-verify): the old one works until then.
    pendingCertPem: {
      ...serverField({ kind: 'string' }, 'The extended certificate awaiting verification'),
      internal: true,
    },
    pendingFingerprint: {
      ...serverField({ kind: 'string' }, 'SHA-1 fingerprint of the extended certificate'),
      internal: true,
    },
    isIssuedByNetwork: serverField({ kind: 'boolean' }, 'The certificate was issued by this controller', {
      filterable: true,
      default: false,
    }),
    // An administrator's request that the holder extend its certificate early (request-extend), and roll its key
    // too; both are cleared when an extension is verified. Clients learn of them from their API session.
    isExtendRequested: serverField(
      { kind: 'boolean' },
      'An administrator asked for the certificate to be extended early (cert)',
      { filterable: true, default: false },
    ),
    isKeyRollRequested: serverField({ kind: 'boolean' }, 'The early extension should use a new key pair (cert)', {
      filterable: true,
      default: false,
    }),
    extendRequestedAt: serverField(datetime, 'When the early extension was requested (cert)', {
      filterable: true,
      sortable: true,
    }),
    lastExtendRolledKeys: serverField(
      { kind: 'boolean' },
      'The last verified extension came with a new key pair (cert)',
      { filterable: true, default: false },
    ),
  },
  example: { method: 'updb', username: 'user-$unique', password: 'Password-$unique' },
  // One password per identity, decided by the database so that two concurrent creates cannot both succeed.
  indexes: [{ columns: ['identityId'], unique: true, where: { method: 'updb' } }],
  cli: {
    noun: 'authenticator',
    aliases: ['authenticators', 'auth'],
    group: 'Identities and authentication',
    columns: [
      { header: 'ID', field: 'id' },
      { header: 'Identity', field: 'identity.name' },
      { header: 'Method', field: 'method' },
      { header: 'Username', field: 'username' },
      { header: 'Fingerprint', field: 'fingerprint', priority: 1 },
      { header: 'Created', field: 'createdAt', priority: 1 },
    ],
  },
};
