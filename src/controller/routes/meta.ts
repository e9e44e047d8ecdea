import { certsOnlyPkcs7Base64 } from '../../protocol/pkcs7.js';
import { CLIENT_BASE, FABRIC_BASE, MANAGEMENT_BASE } from '../../protocol/envelope.js';
import type { Runtime } from '../runtime.js';
import { buildSpec } from '../server/openapi.js';
import type { Ctx, Route, ApiName } from '../server/types.js';
import { notFound } from '../../protocol/errors.js';
import { CATALOGUE } from '../../resources/index.js';
import { ref, type Responses, type Success } from '../server/responses.js';

/** Capabilities this controller knows of (OpenZiti's enum); none of them is enabled here yet. */
const KNOWN_CAPABILITIES = ['OIDC_AUTH', 'HA_CONTROLLER'];

const SPECS = [
  { id: 'edge-client', name: 'Edge Client API', api: 'client' as ApiName },
  { id: 'edge-management', name: 'Edge Management API', api: 'management' as ApiName },
];

/**
 * Version, capabilities, specs, summary and the CA store. `routesOf` returns what the router serves, so the
 * spec document describes the real routes.
 */
export function metaRoutes(rt: Runtime, routesOf: (api: ApiName) => Route[], started: Date): Route[] {
  const version = () => ({ data: versionInfo(rt) });
  const cacerts = () => ({
    raw: certsOnlyPkcs7Base64([rt.pki.caBundlePem]),
    contentType: PKCS7,
    headers: { 'content-transfer-encoding': 'base64' },
  });
  const specEntity = (s: (typeof SPECS)[number]) => ({
    id: s.id,
    name: s.name,
    createdAt: started.toISOString(),
    updatedAt: started.toISOString(),
    tags: {},
    _links: { self: { href: `./specs/${s.id}` }, spec: { href: `./specs/${s.id}/spec` } },
  });
  const findSpec = (ctx: Ctx) => {
    const s = SPECS.find((x) => x.id === ctx.params.id);
    if (!s) throw notFound('spec', ctx.params.id);
    return s;
  };
  return [
    { method: 'GET', path: '/', api: 'both', access: 'public', responds: versionAnswer, handler: version },
    { method: 'GET', path: '/version', api: 'both', access: 'public', responds: versionAnswer, handler: version },
    {
      method: 'GET',
      path: '/.well-known/est/cacerts',
      api: 'both',
      access: 'public',
      responds: (r) => r.raw('the CA bundle, certs-only PKCS#7 in base64', { type: 'string' }, [PKCS7]),
      handler: cacerts,
    },
    {
      method: 'GET',
      path: '/enumerated-capabilities',
      api: 'both',
      access: 'public',
      responds: (r) => r.data('listEnumeratedCapabilitiesEnvelope', 'capabilities this controller knows of', STRINGS),
      handler: () => ({ data: KNOWN_CAPABILITIES }),
    },
    {
      method: 'GET',
      path: '/specs',
      api: 'both',
      access: 'public',
      responds: (r) => r.data('listSpecsEnvelope', 'the API documents served', { type: 'array', items: SPEC_DETAIL }),
      handler: () => ({ data: SPECS.map(specEntity) }),
    },
    {
      method: 'GET',
      path: '/specs/{id}',
      api: 'both',
      access: 'public',
      responds: (r) => r.data('detailSpecEnvelope', 'one API document', SPEC_DETAIL),
      handler: (ctx) => ({ data: specEntity(findSpec(ctx)) }),
    },
    {
      method: 'GET',
      path: '/specs/{id}/spec',
      api: 'both',
      access: 'public',
      responds: documentAnswer,
      handler: (ctx) => {
        // The document itself, not wrapped in an envelope: what OpenZiti serves and Swagger tools expect.
        const s = findSpec(ctx);
        return {
          raw: JSON.stringify(buildSpec(s.api, routesOf(s.api), rt.config.version)),
          contentType: 'application/json',
        };
      },
    },
    {
      method: 'GET',
      path: '/summary',
      api: 'management',
      access: 'admin',
      responds: summaryAnswer,
      handler: async () => ({ data: await summary(rt) }),
    },
  ];
}

/**
 * The OpenZiti release whose Edge API this controller implements, served as `version` in /version. Clients gate
 * features on that field (ZAC strips the "v" and compares it as a semver: its JWT-signer form needs >= 1.4.0), so it
 * must name an OpenZiti release, not ctl's own version. The wire contract was read from the OpenZiti controller
 * after its v2.0.3 release (edge-api spec 0.29.0, vendored in test/vendor/openziti-edge-api), so 2.0.3 is the newest
 * release whose API is the one implemented here. ctl's own version is in `revision` (docs/controller.md, "Version").
 */
export const OPENZITI_API_RELEASE = '2.0.3';

function versionInfo(rt: Runtime) {
  const base = rt.config.publicUrl;
  const binding = (path: string) => ({ v1: { path, apiBaseUrls: [`${base}${path}`], version: rt.config.version } });
  return {
    version: `v${OPENZITI_API_RELEASE}`,
    revision: `ctl v${rt.config.version}`,
    buildDate: '',
    runtimeVersion: process.version,
    capabilities: [],
    apiVersions: {
      edge: binding(CLIENT_BASE),
      'edge-client': binding(CLIENT_BASE),
      'edge-management': binding(MANAGEMENT_BASE),
      fabric: binding(FABRIC_BASE),
    },
  };
}

/**
 * Every catalogue resource's count, keyed as OpenZiti keys its stores: the resource's `summaryKey`, or the camelCase
 * plural (`servicePolicies`). `routers.edge` is a child store in OpenZiti: edge routers are routers too, and here
 * each edge router also has its row among the routers, so `routers` counts every router by itself. Keys of
 * resources this controller does not have yet are left out, never shown as 0.
 */
async function summary(rt: Runtime): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const def of CATALOGUE) out[summaryKey(def)] = await rt.store.repoFor(def).count();
  return out;
}

export function summaryKey(def: { summaryKey?: string; plural: string }): string {
  return def.summaryKey ?? def.plural.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

const PKCS7 = 'application/pkcs7-mime';
const SPEC_DETAIL = ref('specDetail');
const STRINGS = { type: 'array', items: { type: 'string' } };

function versionAnswer(r: Responses): Success {
  return r.data('detailVersionEnvelope', 'the controller version and API bases', ref('version'));
}

function documentAnswer(r: Responses): Success {
  const schema = {
    type: 'object',
    properties: { swagger: { type: 'string' }, paths: { type: 'object' } },
    required: ['swagger', 'paths'],
  };
  return r.raw('the Swagger 2.0 document itself (not an envelope)', schema);
}

function summaryAnswer(r: Responses): Success {
  const counts = { type: 'object', additionalProperties: { type: 'integer' } };
  return r.data('listSummaryCountsEnvelope', 'the number of entities of each resource', counts);
}
