import { nameField, serverField } from './common.js';
import type { FieldDef, ResourceDef } from './types.js';

export const EXAMPLE_CA_PEM = [
  '-----BEGIN CERTIFICATE-----',
  'MIIBvjCCAWWgAwIBAgIUcPkbCP3KfdlR9ub0pmfVw0925bEwCgYIKoZIzj0EAwIw',
  'LDETMBEGA1UEAwwKRXhhbXBsZSBDQTEVMBMGA1UECgwMY3RsIGV4YW1wbGVzMCAX',
  'DTI2MTEyMzE0MDkzOVoYDzIxMjYxMDMwMTQwOTM5WjAsMRMwEQYDVQQDDApFeGFt',
  'cGxlIENBMRUwEwYDVQQKDAxjdGwgZXhhbXBsZXMwWTATBgcqhkjOPQIBBggqhkjO',
  'PQMBBwNCAAQpD8hdDafv/QiqUvBkG1a+9b9Z3yI8tKBdzEs/xmqNwcffbqsZN7hu',
  'bDQIn8s2INCrZYFJSKJbpXog9Mr/Jkswo2MwYTAdBgNVHQ4EFgQUiHSYmD3pMd5D',
  '4SzzR7ziOGJW09AwHwYDVR0jBBgwFoAUiHSYmD3pMd5D4SzzR7ziOGJW09AwDwYD',
  'VR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAQYwCgYIKoZIzj0EAwIDRwAwRAIg',
  'N0ucwoi+HrweXzYfqZ84xOcSwXPdYl/UGROpOor7wx8CIAxY6A1wp8htDZu4X49L',
  'lSS9WqTB1JskzGzlkREso2Wk',
  '-----END CERTIFICATE-----',
].join('\n');

const flag = (description: string): FieldDef => ({
  type: { kind: 'boolean' },
  description,
  create: 'required',
  replace: 'required',
  patch: 'optional',
  filterable: true,
  sortable: true,
});

/**
 * A third-party certificate authority. Created unverified with a `verificationToken`; verified by a certificate it
 * signed whose common name is the token (`POST /cas/{id}/verify`). Only a verified CA is ever trusted. Create and
 * verify are handlers (the PEM is checked and fingerprinted); the rest is the standard group. `externalIdClaim`
 * says how to read an identity's externalId out of the CA's certificates (checked and completed by the CA's
 * behaviour; a patch replaces it whole, null removes it).
 */
export const ca: ResourceDef = {
  name: 'ca',
  plural: 'cas',
  label: 'CA',
  api: 'management',
  operations: ['list', 'get', 'create', 'replace', 'patch', 'delete'],
  table: 'cas',
  description: 'A third-party certificate authority whose certificates identities may enroll or authenticate with',
  fields: {
    name: nameField('Unique name of the CA'),
    certPem: {
      type: { kind: 'string', minLength: 1, maxLength: 65536, format: 'pem' },
      description: 'The CA certificate (PEM)',
      create: 'required',
      replace: 'no',
      patch: 'no',
    },
    fingerprint: serverField({ kind: 'string' }, 'SHA-1 fingerprint of the CA certificate', {
      filterable: true,
      read: { required: true },
    }),
    isVerified: serverField({ kind: 'boolean' }, 'The CA proved it holds its key (verify)', {
      filterable: true,
      default: false,
      read: { required: true },
    }),
    verificationToken: serverField({ kind: 'string' }, 'The common name a verification certificate must carry', {
      filterable: true,
      read: { required: true },
    }),
    isAutoCaEnrollmentEnabled: flag('Certificates of this CA may enroll without a prior identity (/enroll/ca)'),
    isOttCaEnrollmentEnabled: flag('Identities may enroll with a certificate of this CA and a one-time token (ottca)'),
    isAuthEnabled: flag('Certificates of this CA may authenticate (method=cert)'),
    identityRoles: {
      type: { kind: 'attributes' },
      description: 'Role attributes given to identities created by auto enrollment',
      create: 'required',
      replace: 'required',
      patch: 'optional',
      default: [],
    },
    externalIdClaim: {
      // Free-form here because its members are nullable (criteria), which member types cannot say; the CA's
      // behaviour checks it whole (src/controller/pki/external-id.ts) and stores all six members.
      type: { kind: 'object' },
      description:
        'How certificates of this CA name an identity by its externalId: location ' +
        '(COMMON_NAME, SAN_URI, SAN_EMAIL), matcher (ALL, PREFIX, SUFFIX, ' +
        'SCHEME), matcherCriteria, parser (NONE, SPLIT), parserCriteria, index',
      create: 'optional',
      replace: 'optional',
      patch: 'optional',
      nullable: true,
      // Its presenter leaves it out when the CA has none (an empty object would not be a claim).
      read: { required: false },
    },
    identityNameFormat: {
      type: { kind: 'string', minLength: 1, maxLength: 1024 },
      description:
        'Name of identities created by auto enrollment: [caName], [caId], [commonName], [requestedName], [identityId]',
      create: 'optional',
      replace: 'optional',
      patch: 'optional',
      nullable: true,
      default: '[caName]-[commonName]',
    },
  },
  // A self-signed example CA (EC P-256, valid until 2126) for the generic tests' bodies; its key is nowhere.
  example: {
    certPem: EXAMPLE_CA_PEM,
    isAutoCaEnrollmentEnabled: false,
    isOttCaEnrollmentEnabled: true,
    isAuthEnabled: true,
    identityRoles: [],
  },
  cli: {
    noun: 'ca',
    aliases: ['cas'],
    group: 'Identities and authentication',
    columns: [
      { header: 'ID', field: 'id' },
      { header: 'Name', field: 'name' },
      { header: 'Verified', field: 'isVerified' },
      { header: 'Auth', field: 'isAuthEnabled' },
      { header: 'OTT-CA', field: 'isOttCaEnrollmentEnabled' },
      { header: 'Auto', field: 'isAutoCaEnrollmentEnabled', priority: 1 },
      { header: 'Fingerprint', field: 'fingerprint', priority: 1 },
    ],
  },
};
