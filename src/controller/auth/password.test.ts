import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PasswordHasher } from './password.js';

const hasher = new PasswordHasher();
const hashPassword = (p: string) => hasher.hash(p);
const verifyPassword = (p: string, h: string | null | undefined) => hasher.verify(p, h);

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

test('a cheaper cost is recorded in the hash and verifies under any hasher', async () => {
  const cheap = new PasswordHasher({ N: 2 ** 10, r: 8, p: 1 });
  const hash = await cheap.hash('pw-12345');
  assert.match(hash, /^scrypt\$1024\$8\$1\$/);
  assert.equal(await hasher.verify('pw-12345', hash), true);
});
