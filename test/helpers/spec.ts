/**
 * The wire contract as data: the OpenZiti Swagger 2.0 documents vendored unchanged in
 * `test/vendor/openziti-edge-api/`, converted once to JSON Schema and compiled with ajv, one validator per operation
 * and status.
 *
 * `validateResponse()` is what the HTTP test helper calls for every response it sees, so any test that talks to the
 * controller through it also checks the wire shapes.
 *
 * The documents are used as published, with a short, explicit list of in-memory corrections (`SPEC_CORRECTIONS`):
 * defects of the documents themselves, and the few places where wire-protocol.md records that the real controller
 * differs from the snapshot. Nothing else is relaxed.
 */
import { AssertionError } from 'node:assert';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { parse as parseYaml } from 'yaml';

export type ApiName = 'management' | 'client';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Vendored in the repository (source commit, version and licence in its README), so a clone tests alone. */
export const SPEC_DIR = path.join(REPO_ROOT, 'test', 'vendor', 'openziti-edge-api');

export const BASE_PATHS: Record<ApiName, string> = {
  management: '/edge/management/v1',
  client: '/edge/client/v1',
};

/**
 * Routes the controller serves at the server root (outside both base paths), as the OpenZiti controller does
 * (wire-protocol section 8: they are mapped to the client API). Each is validated against the client operation
 * of the same path.
 */
export const SERVER_ROOT_ROUTES: ReadonlyArray<{ method: string; path: string }> = [
  { method: 'GET', path: '/version' },
  { method: 'GET', path: '/' },
  { method: 'GET', path: '/.well-known/est/cacerts' },
];

/**
 * Error code -> HTTP status, from wire-protocol section 2; a response pairing a listed code
 * with another status is a defect.
 */
export const ERROR_STATUS: Readonly<Record<string, number>> = {
  NOT_FOUND: 404,
  UNHANDLED: 500,
  COULD_NOT_VALIDATE: 400,
  COULD_NOT_PARSE_BODY: 400,
  INVALID_CONTENT_TYPE: 400,
  UNAUTHORIZED: 401,
  INVALID_AUTH: 401,
  INVALID_AUTH_METHOD: 400,
  INVALID_FILTER: 400,
  INVALID_PAGINATION: 400,
  INVALID_SORT_IDENTIFIER: 400,
  ENTITY_CAN_NOT_BE_DELETED: 400,
  ENTITY_CAN_NOT_BE_UPDATED: 400,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_ENTITY_TOO_LARGE: 413,
  INVALID_UUID: 400,
  ENROLLMENT_EXPIRED: 400,
  INVALID_ENROLLMENT_TOKEN: 400,
  INVALID_ENROLL_METHOD: 400,
  CAN_NOT_DELETE_REFERENCED_ENTITY: 409,
  CAN_NOT_UPDATE_AUTHENTICATOR: 409,
  INVALID_AUTHENTICATOR_PROPERTIES: 400,
  MAX_AUTHENTICATOR_METHODS_REACHED: 409,
  REFERENCED_ENTITY_NOT_FOUND: 400,
  ENROLLMENT_EXISTS: 409,
  MFA_EXISTS: 409,
  MFA_NOT_ENROLLED: 409,
  MFA_INVALID_TOKEN: 400,
  MFA_ENROLLMENT_NOT_STARTED: 404,
  SERVER_TOO_MANY_REQUESTS: 429,
  RATE_LIMITED: 429,
  TIMEOUT: 503,
};

/** What was corrected in memory, with the reason; printed in assertion messages so nobody is surprised. */
export const SPEC_CORRECTIONS: string[] = [];

interface SwaggerResponse {
  description?: string;
  schema?: unknown;
}

export interface SpecOperation {
  api: ApiName;
  method: string;
  /** The path template as written in the spec, e.g. `/identities/{id}`. */
  template: string;
  operationId: string;
  responses: Record<string, SwaggerResponse>;
  /** No authentication declared (`security: []`, or no `security` at all). */
  anonymous: boolean;
  regex: RegExp;
  paramCount: number;
}

interface LoadedSpec {
  /** The parsed document, with the `items: null` defect fixed. */
  doc: any;
  operations: SpecOperation[];
}

const SCHEMA_ID: Record<ApiName, string> = {
  management: 'https://spec.test.invalid/edge-management.json',
  client: 'https://spec.test.invalid/edge-client.json',
};

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

// ---------------------------------------------------------------------------------------------------------------
// Loading

const loaded = new Map<ApiName, LoadedSpec>();

export function specFile(api: ApiName): string {
  return path.join(SPEC_DIR, api === 'management' ? 'management.yml' : 'client.yml');
}

/** The Swagger document of one API (parsed once, `items: null` fixed). */
export function loadSpec(api: ApiName): LoadedSpec {
  const cached = loaded.get(api);
  if (cached) return cached;
  const doc = parsedDocument(specFile(api)) as any;
  fixNullItems(doc, `${api}.yml`, '');
  const operations: SpecOperation[] = [];
  for (const [template, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const op = item?.[method];
      if (!op) continue;
      const names: string[] = [];
      const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_m, name: string) => {
        names.push(name);
        return '([^/]+)';
      });
      operations.push({
        api,
        method: method.toUpperCase(),
        template,
        operationId: String(op.operationId ?? `${method} ${template}`),
        responses: op.responses ?? {},
        // No global `security` in either document: an operation without one needs no authentication either.
        anonymous: op.security === undefined || (Array.isArray(op.security) && op.security.length === 0),
        regex: new RegExp(`^${pattern}$`),
        paramCount: names.length,
      });
    }
  }
  // Literal segments win over templates: `/current-identity/mfa/verify` before anything with `{id}`.
  operations.sort((a, b) => a.paramCount - b.paramCount);
  const result = { doc, operations };
  loaded.set(api, result);
  return result;
}

/**
 * The YAML document as data. Parsing a megabyte of YAML costs about half a second, and every test process needs it,
 * so the result is kept as JSON beside the dependencies, keyed by the document's hash (a changed document is parsed
 * again; concurrent test processes each write a whole file and rename it into place).
 */
function parsedDocument(file: string): unknown {
  const text = readFileSync(file, 'utf8');
  const cacheDir = path.join(REPO_ROOT, 'node_modules', '.cache', 'ctl-spec');
  const cached = path.join(cacheDir, `${createHash('sha256').update(text).digest('hex').slice(0, 32)}.json`);
  try {
    return JSON.parse(readFileSync(cached, 'utf8'));
  } catch {
    // not cached yet (or a torn file from a killed run): parse and store
  }
  // The documents write numbers as `!!float 65535`, which the YAML 1.2 core schema leaves unresolved (as strings).
  const floatTag = { tag: 'tag:yaml.org,2002:float', resolve: (s: string) => Number(s), identify: () => false };
  const doc = parseYaml(text, { maxAliasCount: -1, customTags: (tags) => [floatTag, ...tags] });
  mkdirSync(cacheDir, { recursive: true });
  const partial = `${cached}.${process.pid}`;
  writeFileSync(partial, JSON.stringify(doc));
  renameSync(partial, cached);
  return doc;
}

function fixNullItems(node: any, file: string, where: string): void {
  if (Array.isArray(node)) {
    for (const [i, v] of node.entries()) fixNullItems(v, file, `${where}/${i}`);
    return;
  }
  if (!node || typeof node !== 'object') return;
  if ('items' in node && node.items === null) {
    node.items = { type: 'object' };
    SPEC_CORRECTIONS.push(`${file}${where}: items: null replaced with {type: object} (known defect, spec README)`);
  }
  for (const [k, v] of Object.entries(node)) fixNullItems(v, file, `${where}/${k}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Path matching

/**
 * Normalises a request path the way the server must tolerate it: no query or fragment, duplicate slashes collapsed,
 * no trailing slash, and the API base path removed when present.
 */
export function normalisePath(api: ApiName, rawPath: string): string {
  let p = rawPath.split('?')[0]!.split('#')[0]!;
  p = p.replace(/\/{2,}/g, '/');
  if (p.length > 1 && p.endsWith('/')) p = p.replace(/\/+$/, '');
  if (p === '') p = '/';
  const base = BASE_PATHS[api];
  if (p === base) return '/';
  if (p.startsWith(`${base}/`)) p = p.slice(base.length);
  return p;
}

/** The spec operation for a method and a concrete path, or undefined. */
export function findOperation(api: ApiName, method: string, rawPath: string): SpecOperation | undefined {
  const p = normalisePath(api, rawPath);
  const m = method.toUpperCase();
  return loadSpec(api).operations.find((op) => op.method === m && op.regex.test(p));
}

/** Every operation of one API. */
export function operations(api: ApiName): SpecOperation[] {
  return loadSpec(api).operations;
}

// ---------------------------------------------------------------------------------------------------------------
// Schema conversion (Swagger 2.0 -> JSON Schema for ajv)

const DROPPED_KEYWORDS = new Set(['discriminator', 'example', 'examples', 'xml', 'externalDocs', 'readOnly', 'title']);

/** Names of the properties a schema declares, following `$ref` and `allOf`. */
function declaredProperties(schema: any, defs: Record<string, any>, seen = new Set<any>()): Set<string> {
  const out = new Set<string>();
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return out;
  seen.add(schema);
  if (typeof schema.$ref === 'string') {
    const target = defs[refName(schema.$ref)];
    for (const n of declaredProperties(target, defs, seen)) out.add(n);
  }
  for (const n of Object.keys(schema.properties ?? {})) out.add(n);
  for (const part of schema.allOf ?? []) for (const n of declaredProperties(part, defs, seen)) out.add(n);
  return out;
}

function refName(ref: string): string {
  const prefix = '#/definitions/';
  if (!ref.startsWith(prefix)) throw new Error(`unsupported $ref ${ref} (only local definitions are expected)`);
  return ref.slice(prefix.length);
}

/**
 * Removes `required` names that the schema (with its allOf siblings) never declares: the snapshot requires
 * `cachedUpdatedAt` on API sessions, `details` on enrollments and `os`/`version`/... at the top of edge routers,
 * none of which exist as properties or are sent by the controller (the Go server does not validate responses).
 */
function dropUndeclaredRequired(schema: any, defs: Record<string, any>, where: string, inherited?: Set<string>): void {
  if (!schema || typeof schema !== 'object') return;
  if (Array.isArray(schema)) {
    for (const [i, s] of schema.entries()) dropUndeclaredRequired(s, defs, `${where}/${i}`);
    return;
  }
  const own = declaredProperties(schema, defs);
  const allowed = new Set([...own, ...(inherited ?? [])]);
  if (Array.isArray(schema.allOf)) {
    const union = declaredProperties(schema, defs);
    for (const [i, part] of (schema.allOf as any[]).entries())
      dropUndeclaredRequired(part, defs, `${where}/allOf/${i}`, union);
  }
  if (Array.isArray(schema.required) && (schema.properties || schema.allOf || inherited)) {
    const kept = schema.required.filter((n: string) => allowed.has(n));
    const dropped = schema.required.filter((n: string) => !allowed.has(n));
    if (dropped.length > 0) {
      SPEC_CORRECTIONS.push(`${where}: required ${JSON.stringify(dropped)} never declared as properties; dropped`);
      schema.required = kept;
    }
  }
  for (const [k, v] of Object.entries<any>(schema.properties ?? {}))
    dropUndeclaredRequired(v, defs, `${where}/properties/${k}`);
  if (schema.items) dropUndeclaredRequired(schema.items, defs, `${where}/items`);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    dropUndeclaredRequired(schema.additionalProperties, defs, `${where}/additionalProperties`);
  }
}

function nullable(schema: Record<string, unknown>): Record<string, unknown> {
  return { anyOf: [{ type: 'null' }, schema] };
}

/** Converts one Swagger schema node; `$ref`s become absolute refs into the API's definitions document. */
export function convertSchema(node: unknown, api: ApiName): unknown {
  if (Array.isArray(node)) return node.map((n) => convertSchema(n, api));
  if (!node || typeof node !== 'object') return node;
  const src = node as Record<string, unknown>;
  // Swagger 2.0's `type: file` is a binary body (a QR code image): nothing JSON Schema can check.
  if (src.type === 'file') return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(src)) {
    if (key.startsWith('x-') || DROPPED_KEYWORDS.has(key)) continue;
    if (key === '$ref') {
      out.$ref = `${SCHEMA_ID[api]}#/definitions/${refName(String(value))}`;
    } else if (key === 'properties' || key === 'definitions') {
      const props: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(value as Record<string, unknown>)) {
        // appData is `$ref: tags` in the spec, but it is free-form application data (any JSON object), not tags.
        props[name] =
          key === 'properties' && name === 'appData' ? { type: ['object', 'null'] } : convertSchema(sub, api);
      }
      out[key] = props;
    } else if (key === 'enum' || key === 'required' || key === 'default' || key === 'description') {
      out[key] = value;
    } else {
      out[key] = convertSchema(value, api);
    }
  }
  return src['x-nullable'] === true ? nullable(out) : out;
}

function buildDefinitions(api: ApiName, doc: any): Record<string, unknown> {
  const raw: Record<string, any> = structuredClone(doc.definitions ?? {});
  for (const [name, def] of Object.entries(raw)) dropUndeclaredRequired(def, raw, `${api}.yml#/definitions/${name}`);

  // Tags: the spec says `additionalProperties: {type: object}` but describes (and the controller sends) scalar
  // values: null, string, boolean (wire-protocol section 9 adds number).
  if (raw.subTags) {
    raw.subTags = { type: 'object', additionalProperties: { type: ['string', 'boolean', 'number', 'null'] } };
    SPEC_CORRECTIONS.push(`${api}.yml#/definitions/subTags: tag values are scalars (null, string, boolean, number)`);
  }
  // The controller sends `"meta": null` from a few handlers (wire-protocol section 9: GET /current-identity, /summary).
  if (raw.meta) {
    raw.meta = { ...raw.meta, 'x-nullable': true };
    SPEC_CORRECTIONS.push(`${api}.yml#/definitions/meta: may be null (wire-protocol section 9)`);
  }
  // Capabilities newer than the snapshot (wire-protocol section 9).
  if (raw.capabilities?.enum && !raw.capabilities.enum.includes('OIDC_AUTH_WITH_CSR')) {
    raw.capabilities = { ...raw.capabilities, enum: [...raw.capabilities.enum, 'OIDC_AUTH_WITH_CSR'] };
    SPEC_CORRECTIONS.push(`${api}.yml#/definitions/capabilities: OIDC_AUTH_WITH_CSR added (newer-than-spec)`);
  }
  // A service's `config` maps config type names to config data; the spec types each member of the data as an
  // object, but data members are whatever the config type's schema allows (OpenZiti's Go model is
  // map[string]map[string]interface{}): intercept.v1 sends arrays, host.v1 strings and numbers.
  const serviceDetail = raw.serviceDetail?.allOf?.[1]?.properties?.config;
  if (serviceDetail?.additionalProperties?.additionalProperties) {
    serviceDetail.additionalProperties = { type: 'object' };
    SPEC_CORRECTIONS.push(`${api}.yml#/definitions/serviceDetail: config data members may be any JSON value`);
  }
  // The integrity check's times are pointers in OpenZiti's Go model: null before a check has started (endTime while
  // it runs). The document requires them without marking them nullable.
  for (const time of ['startTime', 'endTime']) {
    const property = raw.dataIntegrityCheckDetails?.properties?.[time];
    if (property) {
      property['x-nullable'] = true;
      SPEC_CORRECTIONS.push(`${api}.yml#/definitions/dataIntegrityCheckDetails: ${time} is null until known`);
    }
  }
  return Object.fromEntries(Object.entries(raw).map(([name, def]) => [name, convertSchema(def, api)]));
}

/**
 * Response schema overrides where wire-protocol.md records that the real controller differs from the snapshot.
 * `GET /specs/{id}/spec`: the spec says an envelope whose `data` is a string; the controller writes the Swagger
 * document itself (wire-protocol section 9, and the Go spec router). Either is accepted.
 */
function responseOverride(op: SpecOperation, status: string, converted: unknown): unknown {
  if (op.operationId === 'detailSpecBody' && status === '200') {
    return {
      anyOf: [
        converted,
        {
          type: 'object',
          required: ['swagger', 'paths'],
          properties: { swagger: { type: 'string' }, paths: { type: 'object' } },
        },
      ],
    };
  }
  return converted;
}

// ---------------------------------------------------------------------------------------------------------------
// ajv

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/;

/** A URI reference: links are relative (`./identities/abc`), as in the OpenZiti controller. */
function isUriReference(s: string): boolean {
  if (/[\s\u0000-\u001f]/.test(s)) return false;
  try {
    new URL(s, 'https://base.invalid/edge/');
    return true;
  } catch {
    return false;
  }
}

let ajvInstance: Ajv | undefined;

function ajv(): Ajv {
  if (ajvInstance) return ajvInstance;
  const a = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  a.addFormat('date-time', {
    type: 'string',
    validate: (s: string) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)),
  });
  a.addFormat('date', { type: 'string', validate: (s: string) => /^\d{4}-\d{2}-\d{2}$/.test(s) });
  a.addFormat('uri', { type: 'string', validate: isUriReference });
  a.addFormat('url', { type: 'string', validate: isUriReference });
  a.addFormat('uuid', { type: 'string', validate: (s: string) => UUID.test(s) });
  a.addFormat('byte', { type: 'string', validate: (s: string) => BASE64.test(s) });
  a.addFormat('password', { type: 'string', validate: () => true });
  a.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  a.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  a.addFormat('float', { type: 'number', validate: () => true });
  a.addFormat('double', { type: 'number', validate: () => true });
  for (const api of ['management', 'client'] as const) {
    const { doc } = loadSpec(api);
    a.addSchema({ $id: SCHEMA_ID[api], definitions: buildDefinitions(api, doc) });
  }
  ajvInstance = a;
  return a;
}

const validators = new Map<string, ValidateFunction>();

function compiled(key: string, schema: unknown): ValidateFunction {
  let v = validators.get(key);
  if (!v) {
    v = ajv().compile(schema as object);
    validators.set(key, v);
  }
  return v;
}

/** A validator for one definition, e.g. `definitionValidator('management', 'identityDetail')`. */
export function definitionValidator(api: ApiName, name: string): ValidateFunction {
  return compiled(`def:${api}:${name}`, { $ref: `${SCHEMA_ID[api]}#/definitions/${name}` });
}

/** Ajv errors as indented lines for an assertion message. */
export function formatErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 25)
    .map(
      (e) =>
        `  ${e.instancePath || '(root)'} ` +
        `${e.message ?? e.keyword}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`,
    )
    .join('\n');
}

/** A body, shortened for an assertion message. */
export function preview(body: unknown): string {
  let s: string;
  try {
    s = typeof body === 'string' ? body : (JSON.stringify(body) ?? String(body));
  } catch {
    s = String(body);
  }
  return s.length > 1500 ? `${s.slice(0, 1500)}... (${s.length} chars)` : s;
}

function fail(message: string, body: unknown): never {
  throw new AssertionError({ message: `${message}\n  body: ${preview(body)}` });
}

/**
 * Checks an error body beyond what the spec requires (every apiError field is optional there), following
 * wire-protocol section 2: `error.code`, `error.message` and `error.requestId` are strings, `meta` carries
 * `apiVersion` and `apiEnrollmentVersion`, and a known code comes with its status.
 */
export function checkErrorEnvelope(status: number, body: unknown, what: string): void {
  const v = definitionValidator('management', 'apiErrorEnvelope');
  if (!v(body)) fail(`${what}: error body is not an apiErrorEnvelope:\n${formatErrors(v.errors)}`, body);
  const b = body as { error?: Record<string, unknown>; meta?: Record<string, unknown> | null };
  const e = b.error ?? {};
  const problems: string[] = [];
  if (typeof e.code !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(e.code))
    problems.push('error.code must be an UPPER_SNAKE string');
  if (typeof e.message !== 'string' || e.message === '') problems.push('error.message must be a non-empty string');
  if (typeof e.requestId !== 'string' || e.requestId === '')
    problems.push('error.requestId must be a non-empty string');
  if (!b.meta || typeof b.meta.apiVersion !== 'string' || typeof b.meta.apiEnrollmentVersion !== 'string') {
    problems.push('meta must carry apiVersion and apiEnrollmentVersion strings');
  }
  if (e.cause !== undefined && (e.cause === null || typeof e.cause !== 'object'))
    problems.push('error.cause, when present, must be an object');
  const expected = typeof e.code === 'string' ? ERROR_STATUS[e.code] : undefined;
  if (expected !== undefined && expected !== status)
    problems.push(`code ${String(e.code)} goes with HTTP ${expected}, got ${status}`);
  if (problems.length > 0)
    fail(`${what}: error envelope violates wire-protocol section 2:\n  ${problems.join('\n  ')}`, body);
}

/**
 * Validates one response against the spec operation for `method` + `pathWithoutBase` (a path under the API base;
 * a path that still starts with the base, duplicate or trailing slashes, and a query string are tolerated).
 * Throws an AssertionError when the path/method is not in the spec, when a success status is not documented, or
 * when the body does not conform. Error statuses the operation does not list are checked as the standard error
 * envelope. Every error body is also checked with `checkErrorEnvelope`.
 */
/** Whether OpenZiti's document has an operation for the request at all. */
export function hasOperation(api: ApiName, method: string, pathWithoutBase: string): boolean {
  return findOperation(api, method, pathWithoutBase) !== undefined;
}

export function validateResponse(
  api: ApiName,
  method: string,
  pathWithoutBase: string,
  status: number,
  body: unknown,
): void {
  const op = findOperation(api, method, pathWithoutBase);
  const what = `${method.toUpperCase()} ${BASE_PATHS[api]}${normalisePath(api, pathWithoutBase)} -> ${status}`;
  if (!op) {
    throw new AssertionError({
      message:
        `${what}: no operation in ${api}.yml matches ${method.toUpperCase()} ` +
        `${normalisePath(api, pathWithoutBase)} (route not in the spec)`,
    });
  }
  validateOperationResponse(op, status, body, what);
}

/** Same as validateResponse, for a request made at the server root (outside both base paths). */
export function validateServerRootResponse(method: string, rawPath: string, status: number, body: unknown): void {
  let p = rawPath.split('?')[0]!.replace(/\/{2,}/g, '/');
  if (p.length > 1 && p.endsWith('/')) p = p.replace(/\/+$/, '');
  const allowed = SERVER_ROOT_ROUTES.some((r) => r.method === method.toUpperCase() && r.path === p);
  if (!allowed) {
    throw new AssertionError({
      message: `${method.toUpperCase()} ${p} (server root): not an allow-listed server-root route`,
    });
  }
  const op = findOperation('client', method, p);
  if (!op)
    throw new AssertionError({ message: `${method.toUpperCase()} ${p}: allow-listed but missing from client.yml` });
  validateOperationResponse(op, status, body, `${method.toUpperCase()} ${p} (server root) -> ${status}`);
}

function validateOperationResponse(op: SpecOperation, status: number, body: unknown, what: string): void {
  const key = String(status);
  const response = op.responses[key] ?? op.responses.default;
  if (!response) {
    if (status >= 400) {
      checkErrorEnvelope(status, body, `${what} (${op.operationId}; status not listed, checked as error envelope)`);
      return;
    }
    throw new AssertionError({
      message:
        `${what}: status ${status} is not documented for ${op.operationId} (documented: ` +
        `${Object.keys(op.responses).join(', ')})\n  body: ${preview(body)}`,
    });
  }
  if (response.schema !== undefined) {
    const schema = responseOverride(op, key, convertSchema(response.schema, op.api));
    const v = compiled(`op:${op.api}:${op.method}:${op.template}:${key}`, schema);
    if (!v(body)) {
      fail(
        `${what}: body does not match the ${op.api}.yml ${op.operationId} ` +
          `response ${key} schema:\n${formatErrors(v.errors)}`,
        body,
      );
    }
  }
  if (status >= 400) checkErrorEnvelope(status, body, `${what} (${op.operationId})`);
}
