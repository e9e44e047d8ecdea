import { CATALOGUE, type ResourceDef } from '../../resources/index.js';
import { CLIENT_BASE, MANAGEMENT_BASE } from '../../protocol/envelope.js';
import { bodySchema, readSchema, type JsonSchema } from './schemas.js';
import type { ApiName, Route } from './types.js';

/** Finds the catalogue resource a path belongs to, by its first segment. */
function resourceOf(path: string): ResourceDef | undefined {
  const first = path.split('/').filter(Boolean)[0];
  return CATALOGUE.find((r) => r.plural === first);
}

const ENVELOPE = (data: JsonSchema): JsonSchema => ({ type: 'object', properties: { data, meta: { type: 'object' } }, required: ['data', 'meta'] });
const ERROR: JsonSchema = { $ref: '#/definitions/apiErrorEnvelope' };

/**
 * The Swagger 2.0 document served at /specs/{id}/spec, generated from the routes and the catalogue, so that it
 * always describes what this controller really serves.
 */
export function buildSpec(api: ApiName, routes: Route[], version: string): Record<string, unknown> {
  const definitions: Record<string, JsonSchema> = {
    apiErrorEnvelope: {
      type: 'object',
      properties: {
        error: {
          type: 'object',
          properties: { code: { type: 'string' }, message: { type: 'string' }, requestId: { type: 'string' }, cause: { type: 'object' } },
          required: ['code', 'message'],
        },
        meta: { type: 'object' },
      },
      required: ['error', 'meta'],
    },
  };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of [...routes].sort((a, b) => a.path.localeCompare(b.path))) {
    const def = resourceOf(route.path);
    const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, type: 'string' }));
    const op: Record<string, unknown> = {
      operationId: route.operationId ?? operationId(route),
      parameters: params,
      responses: { default: { description: 'error', schema: ERROR } },
      security: route.access === 'public' ? [] : [{ ztSession: [] }],
    };
    if (def) {
      definitions[`${camel(def.name)}Detail`] ??= readSchema(def);
      const detail = { $ref: `#/definitions/${camel(def.name)}Detail` };
      const isItem = route.path === `/${def.plural}/{id}`;
      const isList = route.path === `/${def.plural}`;
      if (route.method === 'GET' && isList) (op.responses as Record<string, unknown>)['200'] = { description: 'list', schema: ENVELOPE({ type: 'array', items: detail }) };
      if (route.method === 'GET' && isItem) (op.responses as Record<string, unknown>)['200'] = { description: 'detail', schema: ENVELOPE(detail) };
      const verb = route.method === 'POST' && isList ? 'create' : route.method === 'PUT' && isItem ? 'replace' : route.method === 'PATCH' && isItem ? 'patch' : undefined;
      if (verb) (op.parameters as unknown[]).push({ name: 'body', in: 'body', required: true, schema: bodySchema(def, verb) });
    }
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = op;
  }
  return {
    swagger: '2.0',
    info: { title: api === 'management' ? 'Edge Management API' : 'Edge Client API', version },
    basePath: api === 'management' ? MANAGEMENT_BASE : CLIENT_BASE,
    schemes: ['https'],
    consumes: ['application/json'],
    produces: ['application/json'],
    securityDefinitions: { ztSession: { type: 'apiKey', in: 'header', name: 'zt-session' } },
    paths,
    definitions,
  };
}

function camel(name: string): string {
  return name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
}

function operationId(route: Route): string {
  const words = route.path.split('/').filter(Boolean).map((s) => (s.startsWith('{') ? 'by-id' : s));
  return camel(`${route.method.toLowerCase()}-${words.join('-')}`);
}
