import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resource } from '../../resources/index.js';
import type { Row } from '../store/repository.js';
import { links, wireSerialiser } from './serialise.js';

const at = '2026-01-01T00:00:00.000Z';
const common = { createdAt: at, updatedAt: at, tags: { k: 'v' }, isSystem: false };

test('serves the declared read fields, never secret or internal ones, with entity references beside references', () => {
  const authenticator = resource('authenticator');
  const row: Row = {
    id: 'a1',
    ...common,
    refNames: { identityId: 'alice' },
    method: 'updb',
    identityId: 'i1',
    username: 'alice',
    password: 'hash',
    salt: 'salt',
    pendingCertPem: 'PEM',
  };
  const wire = wireSerialiser(authenticator)(row);
  assert.equal(wire.username, 'alice');
  for (const hidden of ['password', 'salt', 'pendingCertPem']) assert.equal(hidden in wire, false, hidden);
  const reference = { _links: { self: { href: './identities/i1' } }, entity: 'identities', id: 'i1', name: 'alice' };
  assert.deepEqual(wire.identity, reference);
  assert.deepEqual((wire._links as Record<string, unknown>).self, { href: './authenticators/a1' });
  assert.equal(wireSerialiser(authenticator), wireSerialiser(authenticator), 'compiled once per resource');
});

test('serves null for the fields that read null, and leaves out other unset fields', () => {
  const row: Row = { id: 'i1', ...common, refNames: {}, name: 'alice', externalId: undefined };
  const wire = wireSerialiser(resource('identity'))(row);
  assert.equal(wire.disabledAt, null);
  assert.equal('externalId' in wire, resource('identity').fields.externalId.readsNull === true);
  assert.equal('authPolicy' in wire, false, 'no entity reference without the reference');
});

test('links: self, then each relation and each extra link of the declaration, in its order', () => {
  const identity = resource('identity');
  const id = `i"1\\`;
  const served = links(identity, id);
  const names = [...Object.keys(identity.relations ?? {}), ...(identity.links ?? [])];
  assert.ok(names.length > 1);
  assert.deepEqual(Object.keys(served), ['self', ...names]);
  assert.deepEqual(served.self, { href: `./identities/${id}` });
  for (const name of names) assert.deepEqual(served[name], { href: `./identities/${id}/${name}` });
  assert.notEqual(links(identity, id), served, 'a new object for each entity');
  assert.deepEqual(links(resource('config-type'), 'c1').self, { href: './config-types/c1' });
});
