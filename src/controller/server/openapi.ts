import { resource } from '../../resources/index.js';
import { CLIENT_BASE, MANAGEMENT_BASE } from '../../protocol/envelope.js';
import { camel, ref, Responses, type Success } from './responses.js';
import { bodySchema, type JsonSchema } from './schemas.js';
import type { ApiName, Route } from './types.js';

/** Definitions every document carries: the shapes shared by the read models, the envelopes and the errors. */
function commonDefinitions(): Record<string, JsonSchema> {
  const string = { type: 'string' };
  return {
    link: { type: 'object', properties: { href: string, method: string, comment: string }, required: ['href'] },
    links: { type: 'object', description: 'Named links', additionalProperties: ref('link') },
    entityRef: {
      type: 'object',
      description: 'A reference to another entity: its kind (the plural of its path), id, name and links',
      properties: { entity: string, id: string, name: string, _links: ref('links') },
      required: ['entity', 'id', 'name', '_links'],
    },
    // Tag values are null, strings, booleans or numbers; Swagger 2.0 cannot say "one of these types".
    tags: {
      type: 'object',
      description: 'User-defined tags: values are null, strings, booleans or numbers',
      additionalProperties: {},
      'x-nullable': true,
    },
    pagination: {
      type: 'object',
      properties: { limit: { type: 'integer' }, offset: { type: 'integer' }, totalCount: { type: 'integer' } },
      required: ['limit', 'offset', 'totalCount'],
    },
    meta: {
      type: 'object',
      properties: {
        apiVersion: string,
        apiEnrollmentVersion: string,
        pagination: ref('pagination'),
        filterableFields: { type: 'array', items: string },
      },
    },
    listMeta: {
      type: 'object',
      description: 'The meta of a paged list',
      properties: { pagination: ref('pagination'), filterableFields: { type: 'array', items: string } },
      required: ['pagination', 'filterableFields'],
    },
    empty: { type: 'object', properties: { data: { type: 'object' }, meta: ref('meta') }, required: ['data', 'meta'] },
    createLocation: { type: 'object', properties: { id: string, _links: ref('links') }, required: ['id', '_links'] },
    createEnvelope: {
      type: 'object',
      properties: { data: ref('createLocation'), meta: ref('meta') },
      required: ['data', 'meta'],
    },
    apiError: {
      type: 'object',
      properties: { code: string, message: string, requestId: string, cause: { type: 'object' } },
      required: ['code', 'message', 'requestId'],
    },
    apiErrorEnvelope: {
      type: 'object',
      properties: {
        error: ref('apiError'),
        meta: {
          type: 'object',
          properties: { apiVersion: string, apiEnrollmentVersion: string },
          required: ['apiVersion', 'apiEnrollmentVersion'],
        },
      },
      required: ['error', 'meta'],
    },
    version: {
      type: 'object',
      properties: {
        version: string,
        revision: string,
        buildDate: string,
        runtimeVersion: string,
        capabilities: { type: 'array', items: string },
        apiVersions: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            additionalProperties: {
              type: 'object',
              properties: { path: string, version: string, apiBaseUrls: { type: 'array', items: string } },
              required: ['path'],
            },
          },
        },
      },
      required: ['version', 'revision', 'runtimeVersion', 'apiVersions'],
    },
    enrollmentCerts: {
      type: 'object',
      properties: { ca: string, cert: string, serverCert: string },
    },
    specDetail: {
      type: 'object',
      properties: {
        id: string,
        name: string,
        createdAt: { type: 'string', format: 'date-time' },
        updatedAt: { type: 'string', format: 'date-time' },
        tags: ref('tags'),
        _links: ref('links'),
      },
      required: ['id', 'name', 'createdAt', 'updatedAt', '_links'],
    },
  };
}

/** The error answers a route can give, beyond `default`: bad input, no session, no such entity. */
function errorResponses(route: Route, success: Success | undefined): Record<string, unknown> {
  const error = (description: string) => ({ description, schema: ref('apiErrorEnvelope') });
  const out: Record<string, unknown> = {};
  if (route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH' || success?.paged) {
    out['400'] = error('the request was not valid (body, filter, paging)');
  }
  if (route.access !== 'public') out['401'] = error('no valid session, or not allowed');
  if (route.path.includes('{') && !success?.emptyForUnknownParent) out['404'] = error('no entity with that id');
  out.default = error('an error (wire-protocol section 2)');
  return out;
}

/**
 * The Swagger 2.0 document served at /specs/{id}/spec, generated from the routes and the catalogue, so that it
 * always describes what this controller really serves: each route's success response and request body as the
 * route describes them (read models from the catalogue, computed fields included), and its error responses.
 */
export function buildSpec(api: ApiName, routes: Route[], version: string): Record<string, unknown> {
  const definitions = commonDefinitions();
  const responses = new Responses(definitions);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of [...routes].sort((a, b) => a.path.localeCompare(b.path))) {
    const params: unknown[] = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      type: 'string',
    }));
    const success = route.responds?.(responses);
    const op: Record<string, unknown> = {
      operationId: route.operationId ?? operationId(route),
      parameters: params,
      responses: {
        ...(success ? { [String(success.status)]: { description: success.description, schema: success.schema } } : {}),
        ...errorResponses(route, success),
      },
      security: route.access === 'public' ? [] : [{ ztSession: [] }],
    };
    if (success?.produces) op.produces = success.produces;
    if (route.takes) {
      const schema = bodySchema(resource(route.takes.resource), route.takes.verb);
      params.push({ name: 'body', in: 'body', required: true, schema });
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

function operationId(route: Route): string {
  const words = route.path
    .split('/')
    .filter(Boolean)
    .map((s) => (s.startsWith('{') ? 'by-id' : s));
  return camel(`${route.method.toLowerCase()}-${words.join('-')}`);
}
