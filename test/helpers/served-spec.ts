/**
 * The controller's own description of itself: the Swagger 2.0 documents it serves at `/specs/{id}/spec`, fetched
 * once per controller and compiled with ajv, so that every response the HTTP test helper sees is checked against
 * what the controller says it serves, as well as against OpenZiti's documents (spec.ts).
 *
 * Response validation only (request bodies are the controller's own validation's business), and not
 * additionalProperties-strict: a required field missing or a value of the wrong type fails.
 */
import { AssertionError } from 'node:assert';
import https from 'node:https';
import { Ajv, type ValidateFunction } from 'ajv';
import { BASE_PATHS, formatErrors, normalisePath, preview, type ApiName } from './spec.js';

/** Where each API's document is served (its spec id), under the API's base path. */
export const SERVED_SPEC_PATHS: Record<ApiName, string> = {
  management: `${BASE_PATHS.management}/specs/edge-management/spec`,
  client: `${BASE_PATHS.client}/specs/edge-client/spec`,
};

interface ServedOperation {
  method: string;
  template: string;
  operationId: string;
  regex: RegExp;
  paramCount: number;
  /** Status (or `default`) -> the response schema, already converted for ajv (undefined: no body described). */
  responses: Record<string, unknown>;
}

/** One served document, compiled: its operations and the validators of their responses. */
export interface ServedSpec {
  api: ApiName;
  operations: ServedOperation[];
  /** The ajv `$id` its definitions were registered under. */
  id: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Compiling a document

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$/;

let ajvInstance: Ajv | undefined;
function ajv(): Ajv {
  if (ajvInstance) return ajvInstance;
  const a = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  a.addFormat('date-time', {
    type: 'string',
    validate: (s: string) => RFC3339.test(s) && !Number.isNaN(Date.parse(s)),
  });
  a.addFormat('uri', { type: 'string', validate: (s: string) => URL.canParse(s, 'https://base.invalid/') });
  ajvInstance = a;
  return a;
}

/** Swagger 2.0 -> JSON Schema: `x-nullable` becomes a null alternative, other `x-` keys go, `$ref`s become absolute. */
export function convertServedSchema(node: unknown, id: string): unknown {
  if (Array.isArray(node)) return node.map((n) => convertServedSchema(n, id));
  if (!node || typeof node !== 'object') return node;
  // Swagger 2.0's `type: file` is a binary body (a QR code image): nothing JSON Schema can check.
  if ((node as Record<string, unknown>).type === 'file') return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key.startsWith('x-')) continue;
    if (key === '$ref') {
      const ref = String(value);
      if (!ref.startsWith('#/definitions/')) throw new Error(`served document: unsupported $ref ${ref}`);
      out.$ref = `${id}${ref}`;
    } else if (key === 'properties' || key === 'definitions') {
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, convertServedSchema(v, id)]),
      );
    } else if (key === 'enum' || key === 'required' || key === 'description' || key === 'default') {
      out[key] = value;
    } else {
      out[key] = convertServedSchema(value, id);
    }
  }
  return (node as Record<string, unknown>)['x-nullable'] === true ? { anyOf: [{ type: 'null' }, out] } : out;
}

/** Documents already compiled, by their text: every controller of a run serves the same, compiled once. */
const byText = new Map<string, ServedSpec>();

/** Compiles one served document (its definitions are registered with ajv once per distinct document). */
export function compileServedSpec(api: ApiName, doc: any): ServedSpec {
  const text = JSON.stringify(doc);
  const known = byText.get(`${api}\n${text}`);
  if (known) return known;
  if (doc?.swagger !== '2.0' || !doc.paths || typeof doc.paths !== 'object') {
    throw new AssertionError({
      message: `the served ${api} document is not a Swagger 2.0 document: ${text.slice(0, 300)}`,
    });
  }
  const id = `https://served.test.invalid/${byText.size}/${api}.json`;
  ajv().addSchema({ $id: id, definitions: convertServedSchema(doc.definitions ?? {}, id) as object });
  const operations: ServedOperation[] = [];
  for (const [template, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item ?? {})) {
      let paramCount = 0;
      const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, () => {
        paramCount++;
        return '([^/]+)';
      });
      const responses: Record<string, unknown> = {};
      for (const [status, response] of Object.entries<any>(op?.responses ?? {})) {
        responses[status] = response?.schema === undefined ? undefined : convertServedSchema(response.schema, id);
      }
      operations.push({
        method: method.toUpperCase(),
        template,
        operationId: String(op?.operationId ?? `${method} ${template}`),
        regex: new RegExp(`^${pattern}$`),
        paramCount,
        responses,
      });
    }
  }
  // Literal segments win over templates, as in the router.
  operations.sort((a, b) => a.paramCount - b.paramCount);
  const spec = { api, operations, id };
  byText.set(`${api}\n${text}`, spec);
  return spec;
}

const validators = new WeakMap<object, Map<string, ValidateFunction>>();

function validatorFor(op: ServedOperation, key: string, schema: unknown): ValidateFunction {
  let forOp = validators.get(op);
  if (!forOp) validators.set(op, (forOp = new Map()));
  let v = forOp.get(key);
  if (!v) forOp.set(key, (v = ajv().compile(schema as object)));
  return v;
}

// ---------------------------------------------------------------------------------------------------------------
// Validating

/** The served operation for a method and a concrete path (under the API base, or with it), or undefined. */
export function findServedOperation(spec: ServedSpec, method: string, rawPath: string): ServedOperation | undefined {
  const p = normalisePath(spec.api, rawPath);
  const m = method.toUpperCase();
  return spec.operations.find((op) => op.method === m && op.regex.test(p));
}

/**
 * Checks one response against the served document. A success on a route the document does not describe fails
 * (the controller serves what it does not document); an error there is left to the OpenZiti check (unknown routes).
 */
export function validateServedResponse(
  spec: ServedSpec,
  method: string,
  rawPath: string,
  status: number,
  body: unknown,
): void {
  const what = `${method.toUpperCase()} ${rawPath} -> ${status} (served ${spec.api} document)`;
  const op = findServedOperation(spec, method, rawPath);
  if (!op) {
    if (status >= 400) return;
    throw new AssertionError({
      message: `${what}: the controller answered a route its own document does not describe`,
    });
  }
  const key = String(status) in op.responses ? String(status) : 'default';
  if (!(key in op.responses)) {
    throw new AssertionError({
      message:
        `${what}: status ${status} is not documented for ${op.operationId} (documented: ` +
        `${Object.keys(op.responses).join(', ')})\n  body: ${preview(body)}`,
    });
  }
  const schema = op.responses[key];
  if (schema === undefined) return;
  const v = validatorFor(op, key, schema);
  if (!v(body)) {
    throw new AssertionError({
      message:
        `${what}: body does not match the served ${op.operationId} response ` +
        `${key} schema:\n${formatErrors(v.errors)}\n  body: ${preview(body)}`,
    });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Fetching, once per controller

/** The documents of one controller, by its URL (a controller serves the same documents for its whole life). */
const perController = new Map<string, Promise<Record<ApiName, ServedSpec>>>();

function getJson(baseUrl: string, caPem: string, fullPath: string): Promise<unknown> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port,
        method: 'GET',
        path: fullPath,
        ca: caPem,
        agent: false,
        headers: { accept: 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200)
            return reject(new Error(`GET ${fullPath} -> ${res.statusCode}: ${text.slice(0, 300)}`));
          try {
            resolve(JSON.parse(text));
          } catch (err) {
            reject(new Error(`GET ${fullPath}: not JSON (${(err as Error).message})`));
          }
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Both documents a controller serves, fetched and compiled on first use. */
export function servedSpecs(baseUrl: string, caPem: string): Promise<Record<ApiName, ServedSpec>> {
  let specs = perController.get(baseUrl);
  if (!specs) {
    specs = (async () => {
      const [management, client] = await Promise.all(
        (['management', 'client'] as const).map(async (api) =>
          compileServedSpec(api, await getJson(baseUrl, caPem, SERVED_SPEC_PATHS[api])),
        ),
      );
      return { management: management!, client: client! };
    })();
    // A failed fetch is not remembered: the next response tries again (and fails loudly if it fails again).
    specs.catch(() => perController.delete(baseUrl));
    perController.set(baseUrl, specs);
  }
  return specs;
}

/**
 * What the HTTP test helper calls for each response: checks it against the served document of its API (requests
 * at the server root belong to the client API). CORS preflights are not operations and are not checked.
 */
export async function checkServedResponse(
  target: { baseUrl: string; caPem: string },
  api: ApiName | 'root',
  method: string,
  fullPath: string,
  status: number,
  body: unknown,
): Promise<void> {
  if (method.toUpperCase() === 'OPTIONS') return;
  const specs = await servedSpecs(target.baseUrl, target.caPem);
  validateServedResponse(specs[api === 'root' ? 'client' : api], method, fullPath, status, body);
}
