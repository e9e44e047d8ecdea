// Unit tests of the served-document check itself: it must fail on a wrong type or a
// missing field, or it proves nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildRoutes } from '../../src/controller/registry.js';
import type { Runtime } from '../../src/controller/runtime.js';
import { buildSpec } from '../../src/controller/server/openapi.js';
import type { ApiName } from './spec.js';
import { compileServedSpec, validateServedResponse } from './served-spec.js';

const routes = buildRoutes({} as Runtime).routes;
const served = (api: ApiName) =>
  compileServedSpec(
    api,
    JSON.parse(
      JSON.stringify(
        buildSpec(
          api,
          routes.filter((r) => r.api === api || r.api === 'both'),
          '0.0.0',
        ),
      ),
    ),
  );
const management = served('management');
const client = served('client');

const NOW = '2026-08-22T13:03:03.123Z';
const ref = (entity: string, id: string, name = id) => ({
  entity,
  id,
  name,
  _links: { self: { href: `./${entity}/${id}` } },
});

function identity(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'abc123',
    createdAt: NOW,
    updatedAt: NOW,
    tags: {},
    _links: { self: { href: './identities/abc123' } },
    name: 'laptop-7',
    type: ref('identity-types', 'Default'),
    typeId: 'Default',
    isAdmin: false,
    isDefaultAdmin: false,
    roleAttributes: [],
    externalId: null,
    authPolicyId: 'default',
    authPolicy: ref('auth-policies', 'default', 'Default'),
    appData: {},
    defaultHostingCost: 0,
    defaultHostingPrecedence: 'default',
    serviceHostingCosts: {},
    serviceHostingPrecedences: {},
    disabledAt: null,
    disabledUntil: null,
    envInfo: {},
    sdkInfo: {},
    disabled: false,
    authenticators: { updb: { id: 'a1', username: 'laptop' } },
    enrollment: {},
    hasApiSession: false,
    isMfaEnabled: false,
    hasEdgeRouterConnection: false,
    edgeRouterConnectionStatus: 'offline',
    permissions: [],
    ...overrides,
  };
}

const detail = (data: unknown) => ({ data, meta: {} });
const list = (data: unknown[]) => ({
  data,
  meta: { pagination: { limit: 10, offset: 0, totalCount: data.length }, filterableFields: ['id'] },
});
const rejects = (fn: () => void, pattern: RegExp) =>
  assert.throws(fn, (err: Error) => err.name === 'AssertionError' && pattern.test(err.message));

describe('served-document check', () => {
  it('accepts an identity as the controller serves it, in a detail and in a list', () => {
    validateServedResponse(management, 'GET', '/identities/abc123', 200, detail(identity()));
    validateServedResponse(management, 'GET', '/edge/management/v1/identities?limit=1', 200, list([identity()]));
    validateServedResponse(client, 'GET', '/current-identity', 200, detail(identity()));
  });

  it('rejects a wrong type: identity type as an enum name, a string typeId turned number, a non-boolean', () => {
    rejects(
      () => validateServedResponse(management, 'GET', '/identities/abc123', 200, detail(identity({ type: 'Default' }))),
      /\/data\/type must be object/,
    );
    rejects(
      () => validateServedResponse(management, 'GET', '/identities/abc123', 200, detail(identity({ typeId: 5 }))),
      /\/data\/typeId must be string/,
    );
    rejects(
      () => validateServedResponse(management, 'GET', '/identities', 200, list([identity({ disabled: 'no' })])),
      /\/data\/0\/disabled must be boolean/,
    );
    rejects(
      () => validateServedResponse(management, 'GET', '/identities/abc123', 200, detail(identity({ name: null }))),
      /\/data\/name must be string/,
    );
    rejects(
      () =>
        validateServedResponse(
          management,
          'GET',
          '/identities/abc123',
          200,
          detail(identity({ authenticators: { updb: { id: 1 } } })),
        ),
      /authenticators\/updb/,
    );
  });

  it('rejects a missing computed field and a missing envelope member', () => {
    const data = identity();
    delete data.hasApiSession;
    rejects(
      () => validateServedResponse(management, 'GET', '/identities/abc123', 200, detail(data)),
      /required property 'hasApiSession'/,
    );
    rejects(
      () => validateServedResponse(management, 'GET', '/identities', 200, { data: [identity()], meta: {} }),
      /required property 'pagination'/,
    );
  });

  it('checks the other statuses: 201 create, empty envelopes, error envelopes', () => {
    validateServedResponse(management, 'POST', '/identities', 201, {
      data: { id: 'x', _links: { self: { href: './identities/x' } } },
      meta: {},
    });
    validateServedResponse(management, 'DELETE', '/identities/x', 200, { data: {}, meta: {} });
    const error = {
      error: { code: 'NOT_FOUND', message: 'no', requestId: 'r1' },
      meta: { apiVersion: '0.0.1', apiEnrollmentVersion: '0.0.1' },
    };
    validateServedResponse(management, 'GET', '/identities/x', 404, error);
    rejects(
      () => validateServedResponse(management, 'GET', '/identities/x', 404, { error: { code: 'NOT_FOUND' }, meta: {} }),
      /required property 'message'/,
    );
    rejects(
      () => validateServedResponse(management, 'POST', '/identities', 201, { data: {}, meta: {} }),
      /required property 'id'/,
    );
  });

  it('fails a success status the route does not declare (it is held to the error answer)', () => {
    const created = { data: { id: 'x', _links: { self: { href: './identities/x' } } }, meta: {} };
    rejects(() => validateServedResponse(management, 'POST', '/identities', 200, created), /response default schema/);
    const deleted = () => validateServedResponse(management, 'DELETE', '/identities/x', 204, { data: {}, meta: {} });
    rejects(deleted, /response default schema/);
  });

  it('fails a success on a route the document does not describe, and leaves unknown-route errors alone', () => {
    rejects(
      () => validateServedResponse(management, 'GET', '/no-such-things', 200, { data: [], meta: {} }),
      /does not describe/,
    );
    validateServedResponse(management, 'GET', '/no-such-things', 404, {});
  });
});
