// A resource's rows decoded by code compiled from its declaration: values by kind, the columns read and no others,
// the names of referenced entities, and a damaged value reported with its entity and field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resource } from '../../resources/index.js';
import { DamagedRowError } from './codec.js';
import { compileRowDecoder } from './row-decoder.js';

const identity = resource('identity');
const decode = compileRowDecoder(
  identity,
  ['name', 'isAdmin', 'roleAttributes', 'defaultHostingCost', 'authPolicyId'],
  ['authPolicyId'],
);
const at = '2026-01-01T00:00:00.000Z';
const common = { id: 'i1', createdAt: at, updatedAt: at, tags: '{"k":1}', isSystem: 0 };

test('decodes each column read by its kind, and leaves out the columns not read', () => {
  const raw = { ...common, name: 'a', isAdmin: 1, roleAttributes: '["x"]', 'ref:authPolicyId': 'Default' };
  assert.deepEqual(decode(raw), {
    id: 'i1',
    createdAt: at,
    updatedAt: at,
    tags: { k: 1 },
    isSystem: false,
    refNames: { authPolicyId: 'Default' },
    name: 'a',
    isAdmin: true,
    roleAttributes: ['x'],
  });
});

test('a value that cannot be read is reported with its entity and field, never its bytes', () => {
  const damaged = (raw: Record<string, unknown>, field: string) =>
    assert.throws(
      () => decode({ ...common, ...raw }),
      (err: unknown) => err instanceof DamagedRowError && err.at.field === field && err.at.id === 'i1',
    );
  damaged({ tags: '{not json' }, 'tags');
  damaged({ roleAttributes: '[' }, 'roleAttributes');
  damaged({ name: 'a', defaultHostingCost: 'many' }, 'defaultHostingCost');
});
