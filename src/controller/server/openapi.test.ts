// The served Swagger document is valid where it matters: every $ref resolves, every route documents its success.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CATALOGUE, resource } from '../../resources/index.js';
import { buildRoutes } from '../registry.js';
import type { Runtime } from '../runtime.js';
import { buildSpec } from './openapi.js';
import type { ApiName, Route } from './types.js';

// Route builders only close over the runtime: handlers are never called here.
const routes = buildRoutes({} as Runtime).routes;
const routesOf = (api: ApiName): Route[] => routes.filter((r) => r.api === api || r.api === 'both');
const docs = {
  management: buildSpec('management', routesOf('management'), '0.0.0'),
  client: buildSpec('client', routesOf('client'), '0.0.0'),
} as Record<ApiName, any>;

/** Every `$ref` under a node, with where it was found. */
function refs(node: unknown, where = '#', out: Array<[string, string]> = []): Array<[string, string]> {
  if (Array.isArray(node)) for (const [i, n] of node.entries()) refs(n, `${where}/${i}`, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref') out.push([String(v), where]);
      else refs(v, `${where}/${k}`, out);
    }
  }
  return out;
}

/** Schemas in definitions and responses (not request bodies, which are the write models as they are). */
function* readSchemas(doc: any): Generator<[string, unknown]> {
  for (const [name, def] of Object.entries(doc.definitions)) yield [`#/definitions/${name}`, def];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      for (const [status, res] of Object.entries<any>(op.responses))
        yield [`${method.toUpperCase()} ${path} ${status}`, res.schema];
    }
  }
}

for (const api of ['management', 'client'] as const) {
  describe(`served ${api} document`, () => {
    const doc = docs[api];

    it('is Swagger 2.0 with the API base path', () => {
      assert.equal(doc.swagger, '2.0');
      assert.equal(doc.basePath, api === 'management' ? '/edge/management/v1' : '/edge/client/v1');
    });

    it('resolves every $ref to a definition', () => {
      const unresolved = refs(doc)
        .filter(([ref]) => !(ref.startsWith('#/definitions/') && ref.slice('#/definitions/'.length) in doc.definitions))
        .map(([ref, where]) => `${where}: ${ref}`);
      assert.deepEqual(unresolved, []);
    });

    it('documents every route it serves, with a 200, 201 or 202 response schema and an error response', () => {
      const missing: string[] = [];
      for (const route of routesOf(api)) {
        const op = doc.paths[route.path]?.[route.method.toLowerCase()];
        if (!op) missing.push(`${route.method} ${route.path}: no operation`);
        else if (!(op.responses['200']?.schema ?? op.responses['201']?.schema ?? op.responses['202']?.schema))
          missing.push(`${route.method} ${route.path}: no 200/201/202 schema`);
        else if (op.responses.default?.schema?.$ref !== '#/definitions/apiErrorEnvelope')
          missing.push(`${route.method} ${route.path}: no error response`);
      }
      assert.deepEqual(missing, []);
    });

    it('gives every operation a unique operationId', () => {
      const ids = Object.values<any>(doc.paths).flatMap((item) => Object.values<any>(item).map((op) => op.operationId));
      assert.deepEqual(
        ids.filter((id, i) => ids.indexOf(id) !== i),
        [],
      );
    });

    it('uses only Swagger 2.0 types in read models and responses (null is x-nullable, never a type)', () => {
      const bad: string[] = [];
      const walk = (node: unknown, where: string) => {
        if (Array.isArray(node)) for (const [i, n] of node.entries()) walk(n, `${where}/${i}`);
        else if (node && typeof node === 'object') {
          const o = node as Record<string, unknown>;
          if ('type' in o && typeof o.type !== 'string' && where.split('/').at(-1) !== 'properties')
            bad.push(`${where}: type ${JSON.stringify(o.type)}`);
          if ('$ref' in o && Object.keys(o).length > 1) bad.push(`${where}: $ref with siblings`);
          for (const [k, v] of Object.entries(o)) walk(v, `${where}/${k}`);
        }
      };
      for (const [where, schema] of readSchemas(doc)) walk(schema, where);
      assert.deepEqual(bad, []);
    });
  });
}

describe('routes describe themselves', () => {
  const handler = () => ({ data: {} });
  const route = (method: Route['method'], path: string, more: Partial<Route> = {}): Route => ({
    method,
    path,
    api: 'management',
    access: 'admin',
    handler,
    ...more,
  });

  it('documents what a route says it answers and takes, whatever its path', () => {
    const doc = buildSpec(
      'management',
      [
        route('GET', '/identities', { responds: (r) => r.empty('said by the route') }),
        route('POST', '/anything', {
          responds: (r) => r.created(resource('identity')),
          takes: { resource: 'identity', verb: 'create' },
        }),
      ],
      '0.0.0',
    ) as any;
    assert.deepEqual(Object.keys(doc.paths['/identities'].get.responses), ['200', '401', 'default']);
    assert.equal(doc.paths['/identities'].get.responses['200'].description, 'said by the route');
    assert.deepEqual(doc.paths['/anything'].post.responses['201'].schema, { $ref: '#/definitions/createEnvelope' });
    assert.deepEqual(
      doc.paths['/anything'].post.parameters.map((p: any) => p.name),
      ['body'],
    );
    assert.ok('name' in doc.paths['/anything'].post.parameters[0].schema.properties);
  });

  it('gives a route that describes nothing no success response, even on a path it once knew', () => {
    const doc = buildSpec('management', [route('GET', '/version'), route('POST', '/identities')], '0.0.0') as any;
    assert.deepEqual(Object.keys(doc.paths['/version'].get.responses), ['401', 'default']);
    assert.deepEqual(Object.keys(doc.paths['/identities'].post.responses), ['400', '401', 'default']);
    assert.deepEqual(doc.paths['/identities'].post.parameters, []);
  });
});

describe('sub-lists in the served document', () => {
  it('lists no 404 for a sub-list answered without its parent, and lists it where the parent is read', () => {
    const responses = (path: string) => Object.keys(docs.management.paths[path].get.responses);
    assert.ok(!responses('/identities/{id}/authenticators').includes('404'));
    assert.ok(!responses('/services/{id}/identities').includes('404'));
    assert.ok(responses('/identities/{id}/service-configs').includes('404'));
    assert.ok(responses('/identities/{id}').includes('404'));
  });
});

describe('read models in the served document', () => {
  const defs = docs.management.definitions;

  it('describes identity type as an entity reference, with typeId beside it', () => {
    assert.deepEqual(defs.identityDetail.properties.type, { $ref: '#/definitions/entityRef' });
    assert.equal(defs.identityDetail.properties.typeId.type, 'string');
    assert.ok(defs.identityDetail.required.includes('type') && defs.identityDetail.required.includes('typeId'));
  });

  it('declares the fields presenters compute, as required', () => {
    const expected: Record<string, string[]> = {
      identityDetail: [
        'disabled',
        'authenticators',
        'enrollment',
        'hasApiSession',
        'isMfaEnabled',
        'hasEdgeRouterConnection',
        'edgeRouterConnectionStatus',
        'permissions',
        'authPolicy',
      ],
      apiSessionDetail: [
        'token',
        'identity',
        'authQueries',
        'cachedLastActivityAt',
        'cachedUpdatedAt',
        'isCertExtendable',
        'expiresAt',
        'expirationSeconds',
      ],
      enrollmentDetail: ['details', 'identity', 'method', 'expiresAt'],
      authenticatorDetail: ['identity', 'identityId', 'method'],
      authPolicyDetail: ['name', 'primary', 'secondary'],
    };
    for (const [def, fields] of Object.entries(expected)) {
      for (const f of fields) {
        assert.ok(f in defs[def].properties, `${def}.${f} is declared`);
        assert.ok(defs[def].required.includes(f), `${def}.${f} is required`);
      }
    }
  });

  it('serves nullable fields as x-nullable, and never secrets, internal fields or write-only requests', () => {
    assert.equal(defs.identityDetail.properties.externalId['x-nullable'], true);
    assert.equal(defs.identityDetail.properties.disabledAt['x-nullable'], true);
    assert.ok(!('password' in defs.authenticatorDetail.properties));
    assert.ok(!('tokenHash' in defs.apiSessionDetail.properties));
    assert.ok(
      'ott' in defs.identityDetail.properties.enrollment.properties,
      'enrollment is read as the outstanding enrollments',
    );
  });

  it('has a read model for every catalogue resource of the API', () => {
    for (const def of CATALOGUE.filter((r) => r.api === 'management')) {
      const name = `${def.name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())}Detail`;
      assert.ok(name in defs, name);
    }
  });
});

describe('the catalogue declares every field the controller serves', () => {
  it('each read model the presenters return has only declared fields', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const os = await import('node:os');
    const path = await import('node:path');
    const { createController } = await import('../index.js');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'ctl-openapi-'));
    const controller = await createController({
      dataDir: dir,
      publicUrl: 'https://localhost:1',
      adminUser: 'admin',
      adminPassword: 'Admin-pw-1234',
    });
    try {
      const base = '/edge/management/v1';
      const call = async (method: string, url: string, payload?: object, token?: string) => {
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          ...(token ? { 'zt-session': token } : {}),
        };
        const res = await controller.inject({ method, url: `${base}${url}`, payload, headers });
        assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
        return res.json();
      };
      const token = (
        await call('POST', '/authenticate?method=password', { username: 'admin', password: 'Admin-pw-1234' })
      ).data.token as string;
      const id = (
        await call(
          'POST',
          '/identities',
          { name: 'laptop', type: 'User', isAdmin: false, enrollment: { ott: true } },
          token,
        )
      ).data.id as string;
      await call(
        'POST',
        '/authenticators',
        { method: 'updb', identityId: id, username: 'laptop-user', password: 'Laptop-pw-123' },
        token,
      );
      const undeclared: string[] = [];
      const seen: string[] = [];
      for (const def of CATALOGUE.filter((r) => r.api === 'management' && r.operations.includes('list'))) {
        const schema =
          docs.management.definitions[`${def.name.replace(/-(\w)/g, (_: string, c: string) => c.toUpperCase())}Detail`];
        const rows = (await call('GET', `/${def.plural}`, undefined, token)).data as Record<string, unknown>[];
        if (rows.length > 0) seen.push(def.name);
        for (const row of rows)
          for (const key of Object.keys(row)) if (!(key in schema.properties)) undeclared.push(`${def.name}.${key}`);
      }
      assert.deepEqual([...new Set(undeclared)], []);
      for (const name of ['identity', 'authenticator', 'enrollment', 'auth-policy', 'identity-type', 'api-session'])
        assert.ok(seen.includes(name), `some ${name} read models were looked at`);
    } finally {
      await controller.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
