// Unit tests of the spec validator itself, with hand-made bodies: if these fail, every end-to-end result is suspect.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  REPO_ROOT,
  SPEC_CORRECTIONS,
  SPEC_DIR,
  checkErrorEnvelope,
  definitionValidator,
  findOperation,
  normalisePath,
  operations,
  validateResponse,
  validateServerRootResponse,
} from './spec.js';

const NOW = '2026-08-22T13:03:03.123Z';

function identityDetail(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'abc123',
    createdAt: NOW,
    updatedAt: NOW,
    tags: {},
    _links: { self: { href: './identities/abc123' }, 'auth-policies': { href: './auth-policies/default' } },
    name: 'laptop-7',
    type: {
      entity: 'identity-types',
      id: 'Default',
      name: 'Default',
      _links: { self: { href: './identity-types/Default' } },
    },
    typeId: 'Default',
    isAdmin: false,
    isDefaultAdmin: false,
    authenticators: {},
    enrollment: {},
    envInfo: {},
    sdkInfo: {},
    roleAttributes: ['sales', 'emea'],
    hasEdgeRouterConnection: false,
    edgeRouterConnectionStatus: 'offline',
    hasApiSession: false,
    isMfaEnabled: false,
    serviceHostingPrecedences: {},
    serviceHostingCosts: {},
    defaultHostingCost: 0,
    defaultHostingPrecedence: 'default',
    authPolicyId: 'default',
    authPolicy: { entity: 'auth-policies', id: 'default', name: 'Default', _links: {} },
    externalId: null,
    disabled: false,
    disabledAt: null,
    disabledUntil: null,
    permissions: [],
    appData: { nested: { free: ['form'] } },
    ...overrides,
  };
}

function envelope(data: unknown): Record<string, unknown> {
  return { data, meta: {} };
}

function errorEnvelope(code: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    error: { code, message: 'something went wrong', requestId: 'r-1', ...extra },
    meta: { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' },
  };
}

describe('vendored documents', () => {
  it('live inside the repository and are byte for byte what their README records as copied', () => {
    assert.ok(SPEC_DIR.startsWith(REPO_ROOT + path.sep), `${SPEC_DIR} is outside ${REPO_ROOT}`);
    const readme = readFileSync(path.join(SPEC_DIR, 'README.md'), 'utf8');
    for (const name of ['management.yml', 'client.yml']) {
      const digest = createHash('sha256')
        .update(readFileSync(path.join(SPEC_DIR, name)))
        .digest('hex');
      assert.match(
        readme,
        new RegExp(`^${digest}  ${name.replace('.', '\\.')}$`, 'm'),
        `${name} changed since it was copied`,
      );
    }
    assert.match(readFileSync(path.join(SPEC_DIR, 'LICENSE'), 'utf8'), /Apache License\s+Version 2\.0/);
  });
});

describe('spec validator', () => {
  it('accepts a valid identityDetail envelope', () => {
    validateResponse('management', 'GET', '/identities/abc123', 200, envelope(identityDetail()));
  });

  it('rejects an identityDetail without a required field, naming the field', () => {
    const data = identityDetail();
    delete data.name;
    assert.throws(
      () => validateResponse('management', 'GET', '/identities/abc123', 200, envelope(data)),
      (err: Error) => err.name === 'AssertionError' && /must have required property 'name'/.test(err.message),
    );
  });

  it('rejects wrong types, bad enums, out-of-range costs and bad timestamps', () => {
    const bad: Array<Record<string, unknown>> = [
      { isAdmin: 'yes' },
      { defaultHostingPrecedence: 'sometimes' },
      { defaultHostingCost: 65536 },
      { createdAt: 'yesterday' },
      { roleAttributes: 'sales' },
      { tags: { nested: { no: 'objects' } } },
      { _links: { self: {} } },
    ];
    for (const override of bad) {
      assert.throws(
        () => validateResponse('management', 'GET', '/identities/abc123', 200, envelope(identityDetail(override))),
        { name: 'AssertionError' },
        `expected ${JSON.stringify(override)} to be rejected`,
      );
    }
  });

  it('honours x-nullable and free-form appData', () => {
    validateResponse(
      'management',
      'GET',
      '/identities/x',
      200,
      envelope(identityDetail({ roleAttributes: null, tags: null, disabledAt: NOW })),
    );
    validateResponse('management', 'GET', '/identities/x', 200, envelope(identityDetail({ appData: null })));
  });

  it('validates list envelopes and the create shape', () => {
    validateResponse('management', 'GET', '/identities', 200, {
      data: [identityDetail()],
      meta: { pagination: { limit: 10, offset: 0, totalCount: 1 }, filterableFields: ['name'] },
    });
    assert.throws(() => validateResponse('management', 'GET', '/identities', 200, { data: [identityDetail()] }), {
      name: 'AssertionError',
    });
    validateResponse('management', 'POST', '/identities', 201, {
      data: { id: 'abc', _links: { self: { href: './identities/abc' } } },
      meta: {},
    });
  });

  it('matches path templates, tolerating base paths, duplicate and trailing slashes and query strings', () => {
    assert.equal(findOperation('management', 'GET', '/identities/abc')?.operationId, 'detailIdentity');
    assert.equal(findOperation('management', 'GET', '//identities/')?.operationId, 'listIdentities');
    assert.equal(
      findOperation('management', 'get', '/edge/management/v1/identities?limit=5')?.operationId,
      'listIdentities',
    );
    assert.equal(findOperation('management', 'POST', '/identities/abc/disable')?.operationId, 'disableIdentity');
    assert.equal(findOperation('client', 'POST', '/authenticate?method=password')?.operationId, 'authenticate');
    assert.equal(normalisePath('client', '/edge/client/v1'), '/');
    assert.equal(findOperation('management', 'GET', '/edge/management/v1/')?.operationId, 'listRoot');
  });

  it('throws on routes and methods that are not in the spec', () => {
    assert.throws(
      () => validateResponse('management', 'GET', '/no-such-thing', 404, errorEnvelope('NOT_FOUND')),
      /not in the spec/,
    );
    assert.throws(
      () => validateResponse('management', 'PATCH', '/identities', 404, errorEnvelope('NOT_FOUND')),
      /not in the spec/,
    );
    assert.throws(
      () => validateResponse('client', 'GET', '/identities', 200, { data: [], meta: {} }),
      /not in the spec/,
    );
  });

  it('allows exactly the listed server-root routes', () => {
    const version = {
      data: { version: 'v0.1.0', apiVersions: { 'edge-client': { v1: { path: '/edge/client/v1' } } } },
      meta: {},
    };
    validateServerRootResponse('GET', '/version', 200, version);
    validateServerRootResponse('GET', '/', 200, version);
    validateServerRootResponse('GET', '/.well-known/est/cacerts', 200, 'MIIB');
    assert.throws(
      () => validateServerRootResponse('GET', '/identities', 200, { data: [], meta: {} }),
      /not an allow-listed/,
    );
  });

  it('rejects undocumented success statuses', () => {
    assert.throws(
      () => validateResponse('management', 'POST', '/identities', 200, { data: { id: 'x' }, meta: {} }),
      /not documented/,
    );
  });

  it('checks error envelopes, including statuses the operation does not list', () => {
    validateResponse(
      'management',
      'GET',
      '/identities/x',
      404,
      errorEnvelope('NOT_FOUND', { cause: { code: 'UNHANDLED', message: 'identity with id x not found' } }),
    );
    validateResponse('management', 'POST', '/identities', 413, errorEnvelope('REQUEST_ENTITY_TOO_LARGE'));
    validateResponse(
      'management',
      'POST',
      '/identities',
      400,
      errorEnvelope('COULD_NOT_VALIDATE', { cause: { field: 'name', reason: 'duplicate', value: 'x' } }),
    );
    assert.throws(
      () => validateResponse('management', 'POST', '/identities', 400, errorEnvelope('NOT_FOUND')),
      /goes with HTTP 404/,
    );
    const noRequestId = errorEnvelope('NOT_FOUND');
    delete (noRequestId.error as Record<string, unknown>).requestId;
    assert.throws(() => validateResponse('management', 'GET', '/identities/x', 404, noRequestId), /requestId/);
    assert.throws(
      () => checkErrorEnvelope(401, { error: { code: 'UNAUTHORIZED', message: 'x', requestId: 'r' } }, 'no meta'),
      /meta/,
    );
    assert.throws(() => validateResponse('management', 'GET', '/identities/x', 404, 'Not Found'), {
      name: 'AssertionError',
    });
  });

  it('applies the documented in-memory corrections', () => {
    assert.ok(
      SPEC_CORRECTIONS.some((c) => c.includes('items: null')),
      SPEC_CORRECTIONS.join('\n'),
    );
    // apiSessionDetail requires `cachedUpdatedAt`, which is never declared: a real current-api-session body passes.
    validateResponse('client', 'GET', '/current-api-session', 200, {
      data: {
        id: 's1',
        createdAt: NOW,
        updatedAt: NOW,
        tags: {},
        _links: { self: { href: './api-sessions/s1' } },
        token: 't',
        identityId: 'i',
        identity: { entity: 'identities', id: 'i', name: 'n', _links: {} },
        configTypes: [],
        ipAddress: '127.0.0.1',
        authQueries: [],
        isMfaRequired: false,
        isMfaComplete: false,
        authenticatorId: 'a',
        isCertExtendable: false,
        expiresAt: NOW,
        expirationSeconds: 1800,
        lastActivityAt: NOW,
        cachedLastActivityAt: NOW,
      },
      meta: {},
    });
    // GET /specs/{id}/spec: the raw Swagger document, as the controller sends it.
    validateResponse('management', 'GET', '/specs/edge-management/spec', 200, { swagger: '2.0', paths: {} });
    // meta null (GET /current-identity in the Go controller)
    validateResponse('client', 'GET', '/current-identity', 200, { data: identityDetail(), meta: null });
  });

  it('compiles a validator for every response of every operation of both specs', () => {
    let count = 0;
    for (const api of ['management', 'client'] as const) {
      for (const op of operations(api)) {
        for (const status of Object.keys(op.responses)) {
          const body = Number(status) >= 400 ? errorEnvelope('X_Y') : undefined;
          try {
            validateResponse(api, op.method, op.template, Number(status) || 200, body);
          } catch (err) {
            // A body mismatch is expected for most hand-made bodies; a schema that fails to compile is not.
            assert.equal(
              (err as Error).name,
              'AssertionError',
              `${api} ${op.method} ${op.template} ${status}: ${(err as Error).message}`,
            );
          }
          count++;
        }
      }
    }
    assert.ok(count > 500, `only ${count} responses found`);
    assert.ok(definitionValidator('management', 'identityDetail'));
  });
});
