import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApiError } from '../../protocol/errors.js';
import { locate } from './app.js';
import { normalisePath, refuseImpossibleIds, Router } from './router.js';
import type { Route } from './types.js';

const route = (method: Route['method'], path: string, api: Route['api'] = 'management'): Route => ({
  method,
  path,
  api,
  access: 'public',
  handler: () => ({ data: path }),
});

test('paths are normalised: duplicate and trailing slashes are tolerated', () => {
  assert.equal(normalisePath('//identities//abc/'), '/identities/abc');
  assert.equal(normalisePath('/'), '/');
});

test('literal segments win over parameters, parameters are decoded', () => {
  const r = new Router();
  r.add(route('GET', '/identities/{id}'));
  r.add(route('GET', '/identities/x/authenticators'));
  assert.deepEqual(r.match('management', 'GET', '/identities/a%20b').params, { id: 'a b' });
  assert.equal(r.match('management', 'GET', '/identities/x/authenticators').route.path, '/identities/x/authenticators');
});

test('an id no entity could have (control characters, NUL, too long) is NOT_FOUND before any lookup', () => {
  const r = new Router();
  r.add(route('GET', '/identities/{id}'));
  for (const id of ['%00', 'a%1Bb', '%C2%85', 'x'.repeat(257)]) {
    const { params } = r.match('management', 'GET', `/identities/${id}`);
    assert.throws(
      () => refuseImpossibleIds(params),
      (e: ApiError) => e.code === 'NOT_FOUND',
      id,
    );
  }
  refuseImpossibleIds(r.match('management', 'GET', `/identities/${'x'.repeat(256)}`).params);
});

test('unknown paths are NOT_FOUND, known paths with another method METHOD_NOT_ALLOWED', () => {
  const r = new Router();
  r.add(route('GET', '/identities'));
  assert.throws(
    () => r.match('management', 'GET', '/nope'),
    (e: ApiError) => e.code === 'NOT_FOUND',
  );
  assert.throws(
    () => r.match('management', 'PUT', '/identities'),
    (e: ApiError) => e.code === 'METHOD_NOT_ALLOWED' && e.status === 405,
  );
  assert.throws(
    () => r.match('client', 'GET', '/identities'),
    (e: ApiError) => e.code === 'NOT_FOUND',
  );
});

test('a duplicate route fails at boot', () => {
  const r = new Router();
  r.add(route('GET', '/identities', 'both'));
  assert.throws(() => r.add(route('GET', '/identities/', 'client')), /duplicate route/);
});

test('locate maps both API bases, the legacy prefix and server-root paths', () => {
  assert.deepEqual(locate('/edge/management/v1/identities'), { api: 'management', path: '/identities' });
  assert.deepEqual(locate('/edge/client/v1'), { api: 'client', path: '/' });
  assert.deepEqual(locate('/edge/v1/version'), { api: 'client', path: '/version' });
  assert.deepEqual(locate('/.well-known/est/cacerts'), { api: 'client', path: '/.well-known/est/cacerts' });
  assert.deepEqual(locate('//edge//management/v1/'), { api: 'management', path: '/' });
  assert.equal(locate('/edge/unknown/v1/x'), undefined);
});

test('matching walks the path as given: slashes doubled or trailing, and encoded or malformed segments', () => {
  const r = new Router();
  r.add(route('GET', '/identities/{id}'));
  r.add(route('GET', '/identities/{id}/authenticators'));
  assert.deepEqual(r.match('management', 'GET', '//identities//abc/').params, { id: 'abc' });
  assert.equal(
    r.match('management', 'GET', '/identities/abc/authenticators/').route.path,
    '/identities/{id}/authenticators',
  );
  assert.deepEqual(r.match('management', 'GET', '/identities/100%25').params, { id: '100%' });
  assert.throws(
    () => r.match('management', 'GET', '/identities/%E0%A4%A'),
    (e: ApiError) => e.code === 'NOT_FOUND',
  );
  assert.throws(
    () => r.match('management', 'GET', '/identities/abc/authenticators/x'),
    (e: ApiError) => e.code === 'NOT_FOUND',
  );
});

test('locate takes a base only as a whole segment', () => {
  assert.equal(locate('/edge/management/v1x/identities'), undefined);
  assert.deepEqual(locate('/edgeways'), { api: 'client', path: '/edgeways' });
  assert.equal(locate('/edge'), undefined);
  assert.deepEqual(locate('/fabric/v1/routers'), { api: 'fabric', path: '/routers' });
  assert.deepEqual(locate('/fabric/v10'), { api: 'client', path: '/fabric/v10' });
});
