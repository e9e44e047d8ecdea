import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashPassword, verifyPassword } from './password.js';

test('a hash verifies only its own password', async () => {
  const hash = await hashPassword('correct horse');
  assert.match(hash, /^scrypt\$32768\$8\$1\$/);
  assert.equal(await verifyPassword('correct horse', hash), true);
  assert.equal(await verifyPassword('correct hors', hash), false);
  assert.equal(await verifyPassword('', hash), false);
});

test('two hashes of one password differ (random salt)', async () => {
  assert.notEqual(await hashPassword('same'), await hashPassword('same'));
});

test('a missing hash never verifies', async () => {
  assert.equal(await verifyPassword('anything', undefined), false);
  assert.equal(await verifyPassword('anything', null), false);
});

test('an unknown scheme never verifies', async () => {
  assert.equal(await verifyPassword('x', 'md5$abc'), false);
});
