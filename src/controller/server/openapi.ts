import { CATALOGUE, resource, type ResourceDef } from '../../resources/index.js';
import { CLIENT_BASE, MANAGEMENT_BASE } from '../../protocol/envelope.js';
import { CLIENT_VIEW_FIELDS } from '../../resources/external-jwt-signer.js';
import { bodySchema, readSchema, type JsonSchema } from './schemas.js';
import type { ApiName, Route } from './types.js';

const ref = (name: string): JsonSchema => ({ $ref: `#/definitions/${name}` });
const pascal = (name: string): string => name.replace(/(^|-)(\w)/g, (_, __: string, c: string) => c.toUpperCase());
const camel = (name: string): string => name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

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
    tags: { type: 'object', description: 'User-defined tags: values are null, strings, booleans or numbers', additionalProperties: {}, 'x-nullable': true },
    pagination: {
      type: 'object',
      properties: { limit: { type: 'integer' }, offset: { type: 'integer' }, totalCount: { type: 'integer' } },
      required: ['limit', 'offset', 'totalCount'],
    },
    meta: {
      type: 'object',
      properties: { apiVersion: string, apiEnrollmentVersion: string, pagination: ref('pagination'), filterableFields: { type: 'array', items: string } },
    },
    listMeta: {
      type: 'object',
      description: 'The meta of a paged list',
      properties: { pagination: ref('pagination'), filterableFields: { type: 'array', items: string } },
      required: ['pagination', 'filterableFields'],
    },
    empty: { type: 'object', properties: { data: { type: 'object' }, meta: ref('meta') }, required: ['data', 'meta'] },
    createLocation: { type: 'object', properties: { id: string, _links: ref('links') }, required: ['id', '_links'] },
    createEnvelope: { type: 'object', properties: { data: ref('createLocation'), meta: ref('meta') }, required: ['data', 'meta'] },
    apiError: {
      type: 'object',
      properties: { code: string, message: string, requestId: string, cause: { type: 'object' } },
      required: ['code', 'message', 'requestId'],
    },
    apiErrorEnvelope: {
      type: 'object',
      properties: {
        error: ref('apiError'),
        meta: { type: 'object', properties: { apiVersion: string, apiEnrollmentVersion: string }, required: ['apiVersion', 'apiEnrollmentVersion'] },
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

/** What a successful call answers: its status and body schema (and the media type, when not JSON). */
interface Success {
  /** 202: accepted, the work goes on after the answer (the database checks). */
  status: 200 | 201 | 202;
  description: string;
  schema: JsonSchema;
  produces?: string[];
  /** A paged list: takes filter, sort and paging parameters (which can be refused). */
  paged?: boolean;
  /** A sub-list answered without reading its parent: an unknown parent lists nothing, never 404. */
  emptyForUnknownParent?: boolean;
}

/** Builds the responses of one document, adding each resource's read model and envelopes as they are used. */
class Responses {
  constructor(private readonly definitions: Record<string, JsonSchema>) {}

  private envelope(name: string, data: JsonSchema, meta = 'meta'): JsonSchema {
    this.definitions[name] ??= { type: 'object', properties: { data, meta: ref(meta) }, required: ['data', 'meta'] };
    return ref(name);
  }

  private readModel(def: ResourceDef): JsonSchema {
    const name = `${camel(def.name)}Detail`;
    this.definitions[name] ??= readSchema(def);
    return ref(name);
  }

  detail(def: ResourceDef): Success {
    return { status: 200, description: `one ${def.label}`, schema: this.envelope(`detail${pascal(def.name)}Envelope`, this.readModel(def)) };
  }

  list(def: ResourceDef): Success {
    const data = { type: 'array', items: this.readModel(def) };
    return { status: 200, description: `a page of ${def.plural}`, schema: this.envelope(`list${pascal(def.plural)}Envelope`, data, 'listMeta'), paged: true };
  }

  data(name: string, description: string, data: JsonSchema, meta?: string): Success {
    return { status: 200, description, schema: this.envelope(name, data, meta) };
  }

  /** The client API's anonymous signer list: the management read model cut down to what anonymous callers see. */
  clientSigners(): Success {
    const full = readSchema(resource('external-jwt-signer'));
    const keep = new Set<string>(['id', 'createdAt', 'updatedAt', 'tags', '_links', ...CLIENT_VIEW_FIELDS]);
    const properties = Object.fromEntries(Object.entries(full.properties as Record<string, JsonSchema>).filter(([name]) => keep.has(name)));
    this.definitions.clientExternalJwtSignerDetail ??= { ...full, properties, required: [...keep].filter((name) => name !== 'tags') };
    const data = { type: 'array', items: ref('clientExternalJwtSignerDetail') };
    return this.data('listClientExternalJwtSignersEnvelope', 'the enabled external JWT signers, as anonymous callers see them', data, 'listMeta');
  }

  created(def: ResourceDef): Success {
    return { status: 201, description: `the ${def.label} was created`, schema: ref('createEnvelope') };
  }

  empty(description: string): Success {
    return { status: 200, description, schema: ref('empty') };
  }

  /**
   * The success response of a route: the routes handlers add (by method and path), then the standard group,
   * relation sub-lists and role-attribute lists of the catalogue. Undefined for a route nobody described.
   */
  of(route: Route): Success | undefined {
    if (route.describes) {
      const def = resource(route.describes.resource);
      const answer = route.describes.answer;
      return answer === 'empty' ? this.empty(`done (${def.label})`) : this[answer](def);
    }
    const key = `${route.method} ${route.path}`;
    const apiSession = resource('api-session');
    if (key === 'GET /external-jwt-signers' && route.api === 'client') return { ...this.clientSigners(), paged: true };
    switch (key) {
      case 'GET /':
      case 'GET /version':
        return this.data('detailVersionEnvelope', 'the controller version and API bases', ref('version'));
      case 'GET /.well-known/est/cacerts':
        return { status: 200, description: 'the CA bundle, certs-only PKCS#7 in base64', schema: { type: 'string' }, produces: ['application/pkcs7-mime'] };
      case 'GET /enumerated-capabilities':
        return this.data('listEnumeratedCapabilitiesEnvelope', 'capabilities this controller knows of', { type: 'array', items: { type: 'string' } });
      case 'GET /specs':
        return this.data('listSpecsEnvelope', 'the API documents served', { type: 'array', items: ref('specDetail') });
      case 'GET /specs/{id}':
        return this.data('detailSpecEnvelope', 'one API document', ref('specDetail'));
      case 'GET /specs/{id}/spec':
        return {
          status: 200,
          description: 'the Swagger 2.0 document itself (not an envelope)',
          schema: { type: 'object', properties: { swagger: { type: 'string' }, paths: { type: 'object' } }, required: ['swagger', 'paths'] },
        };
      case 'GET /summary':
        return this.data('listSummaryCountsEnvelope', 'the number of entities of each resource', { type: 'object', additionalProperties: { type: 'integer' } });
      case 'POST /authenticate':
      case 'GET /current-api-session':
        return { ...this.detail(apiSession), description: 'the API session, with its token' };
      case 'DELETE /current-api-session':
        return this.empty('the session ended');
      case 'GET /current-identity':
        return this.detail(resource('identity'));
      case 'GET /current-identity/authenticators':
        return this.list(resource('authenticator'));
      case 'GET /current-identity/authenticators/{id}':
        return this.detail(resource('authenticator'));
      case 'PUT /current-identity/authenticators/{id}':
      case 'PATCH /current-identity/authenticators/{id}':
        return this.empty('the authenticator was updated');
      case 'POST /identities/{id}/disable':
        return this.empty('the identity was disabled');
      case 'POST /identities/{id}/enable':
        return this.empty('the identity was enabled');
      case 'PUT /identities/{id}/trace':
        return this.data('traceDetailEnvelope', 'the trace now recorded for the identity', {
          type: 'object',
          properties: { enabled: { type: 'boolean' }, traceId: { type: 'string' }, until: { type: 'string', format: 'date-time' } },
          required: ['enabled'],
        });
      case 'GET /identities/{id}/posture-data': {
        const base = { postureCheckId: { type: 'string' }, timedOut: { type: 'boolean' }, lastUpdatedAt: { type: 'string', format: 'date-time' } };
        const piece = (own: Record<string, unknown>) => ({ type: 'object', properties: { ...base, ...own }, required: [...Object.keys(base), ...Object.keys(own)] });
        const text = { type: 'string' };
        return this.data('postureDataEnvelope', "the posture its clients last reported (zero values for what they never reported)", {
          type: 'object',
          properties: {
            os: piece({ type: text, version: text, build: text }),
            mac: piece({ addresses: { type: 'array', items: text } }),
            domain: piece({ domain: text }),
            processes: { type: 'array', items: { type: 'object' } },
            apiSessionPostureData: { type: 'object' },
          },
          required: ['os', 'mac', 'domain', 'processes', 'apiSessionPostureData'],
        });
      }
      case 'GET /identities/{id}/failed-service-requests':
        return this.data('failedServiceRequestEnvelope', 'the latest service requests refused on posture', { type: 'array', items: { type: 'object' } });
      case 'GET /current-identity/edge-routers':
        return this.list(resource('edge-router'));
      case 'GET /identities/{id}/policy-advice/{serviceId}': {
        const ref = { $ref: '#/definitions/entityRef' };
        const count = { type: 'integer' };
        return this.data('getIdentityPolicyAdviceEnvelope', 'whether the identity can dial and bind the service, and the edge routers they share', {
          type: 'object',
          properties: {
            identityId: { type: 'string' },
            identity: ref,
            serviceId: { type: 'string' },
            service: ref,
            isDialAllowed: { type: 'boolean' },
            isBindAllowed: { type: 'boolean' },
            identityRouterCount: count,
            serviceRouterCount: count,
            commonRouters: { type: 'array', items: { allOf: [ref, { type: 'object', properties: { isOnline: { type: 'boolean' } }, required: ['isOnline'] }] } },
          },
          required: ['identityId', 'identity', 'serviceId', 'service', 'isDialAllowed', 'isBindAllowed', 'identityRouterCount', 'serviceRouterCount', 'commonRouters'],
        });
      }
      case 'GET /sessions/{id}/route-path':
        return this.data('detailSessionRoutePathEnvelope', "the routers of the session's circuit (none without a data plane)", {
          type: 'object',
          properties: { routePath: { type: 'array', items: { type: 'string' } } },
          required: ['routePath'],
        });
      case 'POST /database/check-data-integrity':
      case 'POST /database/fix-data-integrity':
        return { ...this.empty('the check started; read its results at /database/data-integrity-results'), status: 202 };
      case 'GET /database/data-integrity-results':
        return this.data('dataIntegrityCheckResultEnvelope', 'the progress and findings of the last check', integrityResults(), 'listMeta');
      case 'POST /database/snapshot':
        return this.data('databaseSnapshotEnvelope', 'the snapshot was written (SQLite); its path', {
          type: 'object',
          properties: { path: { type: 'string' } },
          required: ['path'],
        });
      case 'POST /identities/{id}/service-configs':
        return this.empty("the identity's service configs were set");
      case 'DELETE /identities/{id}/service-configs':
        return this.empty("the identity's service configs were removed");
      case 'POST /enroll':
      case 'POST /enroll/ott':
        return this.data('enrollmentCertsEnvelope', 'the issued client certificate chain and the CA bundle', ref('enrollmentCerts'));
      case 'POST /enroll/token':
        return this.data(
          'enrollmentCertsEnvelope',
          "the new identity's certificate chain and the CA bundle; {} without a CSR",
          ref('enrollmentCerts'),
        );
      case 'POST /enroll/erott':
      case 'POST /enroll/extend/router':
        return this.data('enrollmentCertsEnvelope', "the router's client and server certificate chains and the CA bundle", ref('enrollmentCerts'));
      case 'POST /enroll/ca':
        return this.empty('an identity was created for the client certificate');
      case 'POST /enroll/ottca':
        return this.empty('the client certificate is now the identity\'s');
      case 'POST /enroll/updb':
        return this.data('enrollUpdbEnvelope', 'the username the identity logs in with', { type: 'object', properties: { username: { type: 'string' } } });
      case 'GET /network-jwts':
        return this.data('listNetworkJWTsEnvelope', 'JWTs naming this controller, signed by its certificate', {
          type: 'array',
          items: { type: 'object', properties: { name: { type: 'string' }, token: { type: 'string' } }, required: ['name', 'token'] },
        });
      case 'POST /enroll/challenge':
        return { status: 200, description: 'the nonce signed by the key the kid names, and the CA bundle (not an envelope)', schema: {
            type: 'object',
            properties: { algorithm: { type: 'string' }, caPool: { type: 'string' }, kid: { type: 'string' }, signature: { type: 'string' } },
            required: ['algorithm', 'caPool', 'kid', 'signature'],
          },
        };
      case 'GET /enroll/jwks':
        return { status: 200, description: 'the keys that sign enrollment JWTs (not an envelope)', schema: { type: 'object', properties: { keys: { type: 'array', items: { type: 'object' } } }, required: ['keys'] } };
      case 'POST /cas/{id}/verify':
        return this.empty('the CA is verified');
      case 'GET /cas/{id}/jwt':
        return { status: 200, description: "the CA's enrollment JWT", schema: { type: 'string' }, produces: ['application/jwt'] };
      case 'POST /current-identity/authenticators/{id}/extend':
        return this.data('identityExtendEnrollmentEnvelope', 'the new client certificate and the CA bundle', {
          type: 'object',
          properties: { ca: { type: 'string' }, clientCert: { type: 'string' } },
          required: ['ca', 'clientCert'],
        });
      case 'POST /current-identity/authenticators/{id}/extend-verify':
        return this.empty('the new certificate replaces the old one');
      case 'POST /authenticators/{id}/re-enroll':
        return { status: 201, description: 'the authenticator is gone; the enrollment that replaces it', schema: ref('createEnvelope') };
      // TOTP MFA (src/controller/routes/client/mfa.ts).
      case 'POST /authenticate/mfa':
        return this.empty('the session has passed MFA');
      case 'POST /current-identity/mfa':
        return { status: 201, description: 'MFA enrollment started; verify it with a code', schema: ref('createEnvelope') };
      case 'GET /current-identity/mfa': {
        const strings = { type: 'array', items: { type: 'string' } };
        return this.data('detailMfaEnvelope', 'the MFA enrollment; the provisioning URL and recovery codes only while unverified', {
          type: 'object',
          properties: {
            id: { type: 'string' },
            createdAt: { type: 'string', format: 'date-time' },
            updatedAt: { type: 'string', format: 'date-time' },
            tags: ref('tags'),
            _links: ref('links'),
            isVerified: { type: 'boolean' }, provisioningUrl: { type: 'string' }, recoveryCodes: strings },
          required: ['id', 'createdAt', 'updatedAt', '_links', 'isVerified'],
        });
      }
      case 'GET /current-identity/mfa/qr-code':
        return { status: 200, description: 'the provisioning URL as a QR code, while unverified', schema: { type: 'file' }, produces: ['image/png'] };
      case 'POST /current-identity/mfa/verify':
        return this.empty('MFA enrollment is complete');
      case 'DELETE /current-identity/mfa':
        return this.empty('MFA is disabled');
      case 'GET /current-identity/mfa/recovery-codes':
        return this.data('detailMfaRecoveryCodesEnvelope', 'never answered here: recovery codes are kept as hashes (404 says to regenerate them)', {
          type: 'object',
          properties: { recoveryCodes: { type: 'array', items: { type: 'string' } } },
          required: ['recoveryCodes'],
        });
      case 'POST /current-identity/mfa/recovery-codes':
        return this.data('mfaRecoveryCodesEnvelope', 'the new recovery codes (GET ./recovery-codes shows them again for a current code)', {
          type: 'object',
          properties: { recoveryCodes: { type: 'array', items: { type: 'string' } } },
          required: ['recoveryCodes'],
        });
      case 'DELETE /identities/{id}/mfa':
        return this.empty("the identity's MFA is removed");
      case 'POST /enrollments/{id}/refresh':
        return { status: 200, description: 'the enrollment has a new token and JWT', schema: ref('createEnvelope') };
      case 'POST /posture-response':
      case 'POST /posture-response-bulk': {
        const service = {
          type: 'object',
          properties: { id: { type: 'string' }, name: { type: 'string' }, postureQueryType: { type: 'string' }, timeout: { type: 'integer' }, timeoutRemaining: { type: 'integer' } },
          required: ['id', 'name', 'postureQueryType', 'timeout', 'timeoutRemaining'],
        };
        const answer = this.data('postureResponseEnvelope', 'the services whose posture timers the responses shortened', {
          type: 'object',
          properties: { services: { type: 'array', items: service } },
          required: ['services'],
        });
        return key === 'POST /posture-response' ? { ...answer, status: 201 } : answer;
      }
      case 'GET /current-api-session/service-updates':
        return this.data('listCurrentApiSessionServiceUpdatesEnvelope', 'when what this identity sees through the client API last changed', {
          type: 'object',
          properties: { lastChangeAt: { type: 'string', format: 'date-time' } },
          required: ['lastChangeAt'],
        });
      case 'GET /protocols':
        return this.data('listProtocolsEnvelope', 'the listening edge protocols by name, with their addresses', {
          type: 'object',
          additionalProperties: { type: 'object', properties: { address: { type: 'string' } }, required: ['address'] },
        });
      case 'GET /services/{id}/edge-routers':
        // The client API's answer; the management API's is the generic list of the relation.
        if (route.api !== 'client') break;
        return {
          ...this.data('listServiceEdgeRoutersEnvelope', 'the edge routers the caller may reach the service through', {
            type: 'object',
            properties: { edgeRouters: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, supportedProtocols: { type: 'object' } } } } },
            required: ['edgeRouters'],
          }, 'listMeta'),
          paged: true,
        };
      case 'GET /services/{id}/terminators':
        if (route.api !== 'client') break;
        return {
          ...this.data('listClientTerminatorsEnvelope', "the service's terminators, as a client sees them (no addresses)", {
            type: 'array',
            items: {
              type: 'object',
              properties: { id: { type: 'string' }, identity: { type: 'string' }, routerId: { type: 'string' }, serviceId: { type: 'string' }, service: { $ref: '#/definitions/entityRef' } },
              required: ['id', 'identity', 'routerId', 'serviceId', 'service'],
            },
          }, 'listMeta'),
          paged: true,
        };
    }
    return this.standard(route);
  }

  private standard(route: Route): Success | undefined {
    const [first, id, sub, ...rest] = route.path.split('/').filter(Boolean);
    if (rest.length > 0) return undefined;
    const attributesOf = CATALOGUE.find((r) => r.roleAttributes?.listPath === first);
    if (attributesOf && route.method === 'GET' && id === undefined) {
      return { ...this.data('listRoleAttributesEnvelope', 'role attributes in use', { type: 'array', items: { type: 'string' } }, 'listMeta'), paged: true };
    }
    const def = CATALOGUE.find((r) => r.plural === first);
    if (!def) return undefined;
    if (id === undefined) {
      if (route.method === 'GET') return this.list(def);
      if (route.method === 'POST') return this.created(def);
      return undefined;
    }
    if (id !== '{id}') return undefined;
    if (sub === undefined) {
      if (route.method === 'GET') return this.detail(def);
      if (route.method === 'PUT' || route.method === 'PATCH') return this.empty(`the ${def.label} was updated`);
      if (route.method === 'DELETE') return this.empty(`the ${def.label} was deleted`);
      return undefined;
    }
    const relation = def.relations?.[sub];
    if (!relation || route.method !== 'GET') return undefined;
    return { ...this.list(resource(relation.resource)), emptyForUnknownParent: !relation.readsParent };
  }
}

/** `GET /database/data-integrity-results`: times are null until known (no check yet, or still running). */
function integrityResults(): JsonSchema {
  const time = { type: 'string', format: 'date-time', 'x-nullable': true };
  return {
    type: 'object',
    properties: {
      inProgress: { type: 'boolean' },
      fixingErrors: { type: 'boolean' },
      tooManyErrors: { type: 'boolean' },
      startTime: time,
      endTime: time,
      error: { type: 'string', description: 'why the check failed; empty when it did not' },
      results: {
        type: 'array',
        items: { type: 'object', properties: { description: { type: 'string' }, fixed: { type: 'boolean' } }, required: ['description', 'fixed'] },
      },
    },
    required: ['inProgress', 'fixingErrors', 'tooManyErrors', 'startTime', 'endTime', 'error', 'results'],
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
 * always describes what this controller really serves: each route's success response (read models from the
 * catalogue, computed fields included), its error responses, and the request bodies of the standard verbs.
 */
export function buildSpec(api: ApiName, routes: Route[], version: string): Record<string, unknown> {
  const definitions = commonDefinitions();
  const responses = new Responses(definitions);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of [...routes].sort((a, b) => a.path.localeCompare(b.path))) {
    const params: unknown[] = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, type: 'string' }));
    const success = responses.of(route);
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
    const def = CATALOGUE.find((r) => r.plural === route.path.split('/').filter(Boolean)[0]);
    if (route.describes?.body) {
      params.push({ name: 'body', in: 'body', required: true, schema: bodySchema(resource(route.describes.resource), route.describes.body) });
    } else if (def) {
      const isItem = route.path === `/${def.plural}/{id}`;
      const isList = route.path === `/${def.plural}`;
      const verb = route.method === 'POST' && isList ? 'create' : route.method === 'PUT' && isItem ? 'replace' : route.method === 'PATCH' && isItem ? 'patch' : undefined;
      if (verb) params.push({ name: 'body', in: 'body', required: true, schema: bodySchema(def, verb) });
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
  const words = route.path.split('/').filter(Boolean).map((s) => (s.startsWith('{') ? 'by-id' : s));
  return camel(`${route.method.toLowerCase()}-${words.join('-')}`);
}
