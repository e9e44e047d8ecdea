// External JWT signers (wire-protocol section 7): management CRUD with the signer rules, and the client API's
// anonymous list that login pages use to offer "sign in with ...". Authentication with a signer's tokens
// (`method=ext-jwt`): src/controller/model/auth/ext-jwt.ts.
import { createHash, X509Certificate } from 'node:crypto';
import { ApiError, invalidField } from '../../../protocol/errors.js';
import { pemBlocks } from '../../../protocol/pem.js';
import { parseQuery } from '../../../protocol/zitiql/index.js';
import { CLIENT_VIEW_FIELDS } from '../../../resources/external-jwt-signer.js';
import { resource } from '../../../resources/index.js';
import type { AuthPolicyShape } from '../../model/auth/auth-policy-rules.js';
import type { ResourceBehaviour } from '../../model/behaviour.js';
import type { Runtime, Write } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import type { Row } from '../../store/repository.js';
import { createResource, listMeta, updateResource } from '../kit/crud.js';
import { toWire } from '../../model/present.js';
import { listParams } from '../kit/query.js';
import type { Responses, Success } from '../../server/responses.js';
import { readSchema, type JsonSchema } from '../../server/schemas.js';
import { answers } from '../kit/describe.js';

const signer = resource('external-jwt-signer');
/** What OpenZiti's Go model serves for a time it does not have (a JWKS signer's certificate validity). */
const ZERO_TIME = '0001-01-01T00:00:00.000Z';
/**
 * Read-model fields the Swagger types as (non-null) strings: served empty when the signer has none, as OpenZiti
 * does (it omits an empty enrollAttributeClaimsSelector).
 */
const EMPTY_WHEN_ABSENT = [
  'audience',
  'kid',
  'clientId',
  'externalAuthUrl',
  'commonName',
  'fingerprint',
  'enrollAttributeClaimsSelector',
] as const;
const CLIENT_SYMBOLS = new Set<string>([
  'id',
  'createdAt',
  'updatedAt',
  'name',
  'externalAuthUrl',
  'clientId',
  'audience',
  'targetToken',
]);

/** create, replace, patch: the generic write, after what forms send back of the read model (see below). */
async function write(rt: Runtime, ctx: Ctx, verb: 'create' | 'replace' | 'patch') {
  const json = await ctx.json();
  const echoed = verb !== 'create' && json && typeof json === 'object' && !Array.isArray(json);
  const body = echoed ? await withoutServedBlanks(rt, ctx.params.id, json as Record<string, unknown>) : json;
  const inner: Ctx = { ...ctx, json: async () => body };
  return verb === 'create' ? createResource(rt, signer, inner) : updateResource(rt, signer, inner, verb);
}

/**
 * A form that sends back the read model sends the "" and zero times the presenter served for what the signer does
 * not have; the generic echo rule compares with the stored value (none), so those are taken out here.
 */
async function withoutServedBlanks(
  rt: Runtime,
  id: string,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const existing = await rt.store.repoFor(signer).get(id);
  const out = { ...body };
  for (const field of [...EMPTY_WHEN_ABSENT, 'notBefore', 'notAfter']) {
    const blank = field === 'notBefore' || field === 'notAfter' ? ZERO_TIME : '';
    if (signer.fields[field].readOnly && out[field] === blank && (existing[field] ?? null) === null) delete out[field];
  }
  return out;
}

/**
 * The one certificate of `certPem`, refused with a 400 on `certPem` unless it is exactly
 * one readable X.509 certificate.
 */
function certificateOf(pem: string): X509Certificate {
  const blocks = pemBlocks(pem);
  if (blocks.length !== 1 || blocks[0].label !== 'CERTIFICATE') {
    throw invalidField('certPem', 'certPem must hold exactly one PEM CERTIFICATE block', '<pem>');
  }
  try {
    return new X509Certificate(Buffer.from(blocks[0].base64, 'base64'));
  } catch (err) {
    throw invalidField('certPem', `certPem is not a readable X.509 certificate: ${(err as Error).message}`, '<pem>');
  }
}

/** The common name of a certificate subject (node renders it one attribute per line); empty when it has none. */
function commonName(cert: X509Certificate): string {
  return (
    cert.subject
      .split('\n')
      .find((line) => line.startsWith('CN='))
      ?.slice(3) ?? ''
  );
}

/**
 * JWKS must come over HTTPS: a key set fetched in clear text could be swapped by anyone on the path, and every
 * token it "verifies" with it. Plain HTTP is allowed to the local machine only (an identity provider under test).
 */
function checkJwksEndpoint(value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidField('jwksEndpoint', 'jwksEndpoint must be an absolute URL', value);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw invalidField('jwksEndpoint', 'jwksEndpoint must be an https URL (http only to localhost)', value);
  }
  if (url.username || url.password)
    throw invalidField('jwksEndpoint', 'jwksEndpoint must not carry credentials', value);
}

/** A JSON pointer (RFC 6901) once `/` is put in front, as OpenZiti reads a claims selector: `~` only as `~0`, `~1`. */
function checkSelector(field: string, selector: unknown): void {
  if (typeof selector === 'string' && /~(?![01])/.test(selector)) {
    throw invalidField(field, `${field} is not a JSON pointer: '~' must be followed by 0 or 1`, selector);
  }
}

/**
 * The enrollment settings on the signer as it will be, as OpenZiti checks them on every write: the enrollment auth
 * policy exists and allows what the enabled enrollments make (certificate logins; ext-JWT logins), and both claims
 * selectors are JSON pointers. Every refusal names the field (400).
 */
async function checkEnrollment(rt: Runtime, after: Record<string, unknown>): Promise<void> {
  checkSelector('enrollNameClaimsSelector', after.enrollNameClaimsSelector);
  checkSelector('enrollAttributeClaimsSelector', after.enrollAttributeClaimsSelector);
  const policyId = (after.enrollAuthPolicyId as string | null | undefined) || 'default';
  const policy = (await rt.store.repo('auth-policy').find(policyId)) as unknown as AuthPolicyShape | undefined;
  if (!policy) throw invalidField('enrollAuthPolicyId', 'the auth policy could not be found', policyId);
  if (after.enrollToTokenEnabled === true && policy.primary.extJwt.allowed !== true) {
    const reason = 'primary external jwt authentication on auth policy is disabled';
    throw invalidField('enrollAuthPolicyId', reason, policyId);
  }
  if (after.enrollToCertEnabled === true && policy.primary.cert.allowed !== true) {
    throw invalidField('enrollAuthPolicyId', 'primary certificate authentication on auth policy is disabled', policyId);
  }
}

/**
 * The signer rules on the entity as it will be (a patch over the stored row): exactly one of certPem or
 * jwksEndpoint, kid with certPem, a certificate that parses, the enrollment settings; the certificate's facts are
 * derived here.
 */
async function beforeWrite(rt: Runtime, w: Write): Promise<Record<string, unknown>> {
  const values = { ...w.values };
  const after: Record<string, unknown> = w.verb === 'patch' ? { ...w.existing, ...values } : values;
  const certPem = (after.certPem ?? null) as string | null;
  const jwks = (after.jwksEndpoint ?? null) as string | null;
  if (certPem === null && jwks === null) throw invalidField('certPem', 'jwksEndpoint or certPem is required', null);
  if (certPem !== null && jwks !== null) {
    const field = 'jwksEndpoint' in values && values.jwksEndpoint !== null ? 'jwksEndpoint' : 'certPem';
    throw invalidField(
      field,
      'only one of jwksEndpoint or certPem may be defined',
      field === 'certPem' ? '<pem>' : jwks,
    );
  }
  if (certPem !== null && !after.kid) throw invalidField('kid', 'kid is required with certPem', after.kid ?? null);
  if (jwks !== null && 'jwksEndpoint' in values) checkJwksEndpoint(jwks);
  await checkEnrollment(rt, after);
  if ('certPem' in values) {
    if (certPem === null) {
      Object.assign(values, { fingerprint: null, commonName: null, notBefore: null, notAfter: null });
    } else {
      const cert = certificateOf(certPem);
      Object.assign(values, {
        fingerprint: createHash('sha1').update(cert.raw).digest('hex'),
        commonName: commonName(cert),
        notBefore: new Date(cert.validFrom).toISOString(),
        notAfter: new Date(cert.validTo).toISOString(),
      });
    }
  }
  return values;
}

/** The management read model: what the Swagger requires is always there (empty or zero where the signer has none). */
function present(rows: Row[]): Record<string, unknown>[] {
  return rows.map((row) => {
    const out = toWire(signer, row);
    for (const field of EMPTY_WHEN_ABSENT) out[field] ??= '';
    out.notBefore ??= ZERO_TIME;
    out.notAfter ??= ZERO_TIME;
    return out;
  });
}

/** The symbols a filter or sort names, so that anonymous callers cannot probe fields they are not shown. */
function symbolsOf(node: unknown, out: Set<string> = new Set()): Set<string> {
  if (Array.isArray(node)) for (const n of node) symbolsOf(n, out);
  else if (node && typeof node === 'object') {
    const n = node as Record<string, unknown>;
    if ((n.kind === 'symbol' || n.kind === 'boolSymbol') && typeof n.name === 'string') out.add(n.name);
    if ((n.kind === 'anyOf' || n.kind === 'allOf') && typeof n.set === 'string') out.add(n.set);
    if (typeof n.field === 'string' && 'direction' in n) out.add(n.field);
    for (const v of Object.values(n)) symbolsOf(v, out);
  }
  return out;
}

/**
 * `GET /external-jwt-signers` of the client API, without authentication: enabled signers only, with only the
 * fields a login page needs to offer them, paged like every list. Filters and sorts may name only those fields.
 */
async function clientList(rt: Runtime, ctx: Ctx) {
  const params = listParams(ctx.query);
  const named = symbolsOf(parseQuery(params.filter ?? ''));
  if (params.sort) symbolsOf(parseQuery(`sort by ${params.sort}`), named);
  const hidden = [...named].find((s) => !CLIENT_SYMBOLS.has(s));
  if (hidden !== undefined) {
    throw new ApiError('INVALID_FILTER', {
      message: `'${hidden}' is not a field of the signer list`,
      cause: { field: hidden, reason: 'not a field of the signer list', value: hidden },
    });
  }
  const repo = rt.store.repoFor(signer);
  const page = await repo.list({ ...params, scope: { where: { enabled: true } } });
  const data = page.rows.map((row) => {
    const full = present([row])[0];
    const out: Record<string, unknown> = {
      id: full.id,
      createdAt: full.createdAt,
      updatedAt: full.updatedAt,
      tags: full.tags,
      _links: full._links,
    };
    for (const field of CLIENT_VIEW_FIELDS) out[field] = full[field];
    return out;
  });
  return { data, meta: listMeta(page, [...CLIENT_SYMBOLS]) };
}

export const externalJwtSignerBehaviour: ResourceBehaviour = {
  resource: 'external-jwt-signer',
  hooks: { beforeWrite },
  present: (rows) => present(rows),
  routes: (rt): Route[] => [
    {
      method: 'POST',
      path: '/external-jwt-signers',
      api: 'management',
      access: 'admin',
      responds: answers.created(signer),
      takes: { resource: signer.name, verb: 'create' },
      handler: (ctx) => write(rt, ctx, 'create'),
    },
    {
      method: 'PUT',
      path: '/external-jwt-signers/{id}',
      api: 'management',
      access: 'admin',
      responds: answers.updated(signer),
      takes: { resource: signer.name, verb: 'replace' },
      handler: (ctx) => write(rt, ctx, 'replace'),
    },
    {
      method: 'PATCH',
      path: '/external-jwt-signers/{id}',
      api: 'management',
      access: 'admin',
      responds: answers.updated(signer),
      takes: { resource: signer.name, verb: 'patch' },
      handler: (ctx) => write(rt, ctx, 'patch'),
    },
    {
      method: 'GET',
      path: '/external-jwt-signers',
      api: 'client',
      access: 'public',
      responds: clientListAnswer,
      handler: (ctx) => clientList(rt, ctx),
    },
  ],
};

/** The client API's anonymous signer list: the management read model cut down to what anonymous callers see. */
function clientListAnswer(r: Responses): Success {
  const full = readSchema(signer);
  const keep = new Set<string>(['id', 'createdAt', 'updatedAt', 'tags', '_links', ...CLIENT_VIEW_FIELDS]);
  const all = Object.entries(full.properties as Record<string, JsonSchema>);
  const properties = Object.fromEntries(all.filter(([name]) => keep.has(name)));
  const required = [...keep].filter((name) => name !== 'tags');
  const item = r.define('clientExternalJwtSignerDetail', { ...full, properties, required });
  const description = 'the enabled external JWT signers, as anonymous callers see them';
  return r.page('listClientExternalJwtSignersEnvelope', description, { type: 'array', items: item });
}
