import { certsOnlyPkcs7Base64 } from '../../protocol/pkcs7.js';
import { CLIENT_BASE, FABRIC_BASE, MANAGEMENT_BASE } from '../../protocol/envelope.js';
import type { Runtime } from '../runtime.js';
import { buildSpec } from '../server/openapi.js';
import type { Ctx, Route, ApiName } from '../server/types.js';
import { notFound } from '../../protocol/errors.js';
import { CATALOGUE } from '../../resources/index.js';

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
    contentType: 'application/pkcs7-mime',
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
    { method: 'GET', path: '/', api: 'both', access: 'public', handler: version },
    { method: 'GET', path: '/version', api: 'both', access: 'public', handler: version },
    { method: 'GET', path: '/.well-known/est/cacerts', api: 'both', access: 'public', handler: cacerts },
    { method: 'GET', path: '/enumerated-capabilities', api: 'both', access: 'public', handler: () => ({ data: KNOWN_CAPABILITIES }) },
    { method: 'GET', path: '/specs', api: 'both', access: 'public', handler: () => ({ data: SPECS.map(specEntity) }) },
    { method: 'GET', path: '/specs/{id}', api: 'both', access: 'public', handler: (ctx) => ({ data: specEntity(findSpec(ctx)) }) },
    {
      method: 'GET',
      path: '/specs/{id}/spec',
      api: 'both',
      access: 'public',
      handler: (ctx) => {
        // The document itself, not wrapped in an envelope: what OpenZiti serves and Swagger tools expect.
        const s = findSpec(ctx);
        return { raw: JSON.stringify(buildSpec(s.api, routesOf(s.api), rt.config.version)), contentType: 'application/json' };
      },
    },
    { method: 'GET', path: '/summary', api: 'management', access: 'admin', handler: async () => ({ data: await summary(rt) }) },
  ];
}

function versionInfo(rt: Runtime) {
  const base = rt.config.publicUrl;
  const binding = (path: string) => ({ v1: { path, apiBaseUrls: [`${base}${path}`], version: rt.config.version } });
  return {
    version: `v${rt.config.version}`,
    revision: 'ctl',
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

/** Every resource's count, keyed as OpenZiti keys them (`servicePolicies`, or the resource's own `summaryKey`). */
async function summary(rt: Runtime): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const def of CATALOGUE) out[def.summaryKey ?? camelCase(def.plural)] = await rt.store.repoFor(def).count();
  return out;
}

function camelCase(plural: string): string {
  return plural.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}
