import { EXAMPLE_CA_PEM } from './ca.js';
import { datetime, nameField, optionalField, serverField } from './common.js';
import type { FieldDef, FieldType, ResourceDef } from './types.js';

/**
 * What anonymous callers of the client API see of a signer (wire-protocol section 7), beyond id, times, tags, links.
 */
export const CLIENT_VIEW_FIELDS = [
  'name',
  'externalAuthUrl',
  'clientId',
  'scopes',
  'audience',
  'targetToken',
  'enrollToCertEnabled',
  'enrollToTokenEnabled',
] as const;

/** Where OpenZiti reads an enrolling identity's name in the signer's tokens unless told otherwise (a JSON pointer). */
export const DEFAULT_ENROLL_NAME_CLAIMS_SELECTOR = '/sub';

/** Target tokens of a signer: which token of the provider's answer clients present (OpenZiti's `targetToken`). */
export const TARGET_TOKENS = ['ACCESS', 'ID'] as const;

const text = (maxLength = 1024): FieldType => ({ kind: 'string', minLength: 1, maxLength });
const url: FieldType = { kind: 'string', minLength: 1, maxLength: 2048, format: 'uri' };

/** Optional text that `null` clears; kept out of the read model's required set by the presenter, which fills it. */
const optionalText = (type: FieldType, description: string, extra: Partial<FieldDef> = {}): FieldDef =>
  optionalField(type, description, { nullable: true, default: null, ...extra });

/**
 * A trusted issuer of JWTs (wire-protocol section 7): the key is either a static certificate (`certPem` with its `kid`)
 * or a key set fetched from `jwksEndpoint`, never both. Authentication with its tokens:
 * src/controller/model/auth/ext-jwt.ts. The certificate's `fingerprint`, `commonName`, `notBefore` and `notAfter` are
 * derived by its model (src/controller/model/resources/external-jwt-signer.ts); its routes also serve the client
 * API's anonymous list (enabled signers, a few fields).
 */
export const externalJwtSigner: ResourceDef = {
  name: 'external-jwt-signer',
  plural: 'external-jwt-signers',
  label: 'external JWT signer',
  api: 'management',
  operations: ['list', 'get', 'create', 'replace', 'patch', 'delete'],
  table: 'external_jwt_signers',
  description: 'A trusted issuer of JWTs that identities may authenticate with',
  fields: {
    name: nameField('Unique name of the signer'),
    enabled: {
      type: { kind: 'boolean' },
      description: 'Tokens of a disabled signer are refused, and it is not offered to clients',
      create: 'required',
      replace: 'required',
      patch: 'optional',
      filterable: true,
      sortable: true,
    },
    // Shaped as a name is (required text, unique, filterable, sortable): one declaration of that shape.
    issuer: nameField('The `iss` claim of its tokens; unique among signers'),
    audience: {
      type: text(),
      description: 'The `aud` claim its tokens must carry',
      create: 'required',
      replace: 'required',
      patch: 'optional',
      nullable: true,
      filterable: true,
      sortable: true,
    },
    certPem: optionalText(
      { kind: 'string', minLength: 1, maxLength: 65536, format: 'pem' },
      'The signing certificate (PEM); exclusive with jwksEndpoint, needs kid',
      { readsNull: true },
    ),
    kid: optionalText(text(), 'Key id of certPem: the `kid` header of its tokens', { filterable: true }),
    jwksEndpoint: optionalText(url, 'HTTPS URL of the key set (JWKS); exclusive with certPem', {
      readsNull: true,
      filterable: true,
    }),
    claimsProperty: optionalField(text(), 'The claim matched to an identity (default sub)', {
      nullable: true,
      default: 'sub',
    }),
    useExternalId: optionalField({ kind: 'boolean' }, "Match the claim to identities' externalId instead of their id", {
      nullable: true,
      default: false,
    }),
    externalAuthUrl: optionalText(url, "Where clients obtain tokens (the provider's URL)", { filterable: true }),
    clientId: optionalText(text(), 'OAuth client id clients use with the provider'),
    scopes: optionalField({ kind: 'array', items: text(), maxItems: 64 }, 'OAuth scopes clients request', {
      nullable: true,
      default: [],
    }),
    targetToken: optionalField({ kind: 'enum', values: TARGET_TOKENS }, 'Which token clients present: ACCESS or ID', {
      default: 'ACCESS',
      filterable: true,
    }),
    // Enrollment with the signer's tokens (OpenZiti's POST /enroll/token): a token naming no identity yet creates one.
    enrollToCertEnabled: optionalField(
      { kind: 'boolean' },
      'A token and a CSR enroll a new identity with a certificate',
      { nullable: true, default: false, filterable: true },
    ),
    enrollToTokenEnabled: optionalField(
      { kind: 'boolean' },
      "A token enrolls a new identity that logs in with the signer's tokens",
      { nullable: true, default: false, filterable: true },
    ),
    enrollNameClaimsSelector: optionalField(
      text(),
      'JSON pointer to the claim naming an enrolled identity (default /sub)',
      { nullable: true, default: DEFAULT_ENROLL_NAME_CLAIMS_SELECTOR, filterable: true },
    ),
    enrollAttributeClaimsSelector: optionalText(
      text(),
      'JSON pointer to the claim (a string or strings) giving an enrolled identity its role attributes',
      { filterable: true },
    ),
    // The id of an auth policy, kept as a plain column (a foreign key added to an existing table needs a rebuilt
    // table): the behaviour checks it exists, and the auth policy's refuses deleting one a signer names.
    enrollAuthPolicyId: optionalField(
      text(),
      "The auth policy of identities the signer's tokens enroll (default: the default policy)",
      { nullable: true, default: 'default', filterable: true, refersTo: 'auth-policy' },
    ),
    fingerprint: serverField({ kind: 'string' }, 'SHA-1 fingerprint of certPem (hex)', { filterable: true }),
    commonName: serverField({ kind: 'string' }, "Common name of certPem's subject", { filterable: true }),
    notBefore: serverField(datetime, "Start of certPem's validity"),
    notAfter: serverField(datetime, "End of certPem's validity", { filterable: true }),
  },
  // Any certificate will do for the generic tests' bodies: the CA example's (its key is nowhere).
  example: {
    certPem: EXAMPLE_CA_PEM,
    kid: 'example-kid',
    jwksEndpoint: null,
    issuer: 'https://issuer.example/$unique',
    audience: 'ctl',
  },
  cli: {
    noun: 'signer',
    aliases: ['signers', 'ext-jwt-signer'],
    group: 'Identities and authentication',
    columns: [
      { header: 'ID', field: 'id' },
      { header: 'Name', field: 'name' },
      { header: 'Enabled', field: 'enabled' },
      { header: 'Issuer', field: 'issuer' },
      { header: 'Audience', field: 'audience' },
      { header: 'Kid', field: 'kid', priority: 1 },
      { header: 'JWKS', field: 'jwksEndpoint', priority: 1 },
      { header: 'Not after', field: 'notAfter', priority: 1 },
    ],
    showFirst: [
      'id',
      'name',
      'enabled',
      'issuer',
      'audience',
      'kid',
      'jwksEndpoint',
      'fingerprint',
      'commonName',
      'notBefore',
      'notAfter',
    ],
  },
};
