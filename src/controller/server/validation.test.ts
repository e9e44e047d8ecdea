import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../protocol/errors.js';
import { resource } from '../../resources/index.js';
import { Validators } from './validation.js';

const identity = resource('identity');
const v = new Validators();

function cause(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 'COULD_NOT_VALIDATE');
    return err.cause as { field: string; reason: string; value: string };
  }
  assert.fail('expected a validation error');
}

test('create requires name, type and isAdmin', () => {
  assert.deepEqual(
    cause(() => v.body(identity, 'create', { type: 'Device', isAdmin: false })),
    {
      field: 'name',
      reason: 'name in body is required',
      value: '',
    },
  );
  assert.ok(v.body(identity, 'create', { name: 'a', type: 'Device', isAdmin: false }));
});

test('unknown fields, bad enums, wrong types and bounds are refused with the field named', () => {
  assert.equal(
    cause(() => v.body(identity, 'create', { name: 'a', type: 'Device', isAdmin: false, colour: 'red' })).field,
    'colour',
  );
  const bad = cause(() => v.body(identity, 'create', { name: 'a', type: 'Robot', isAdmin: false }));
  assert.equal(bad.field, 'type');
  assert.match(bad.reason, /User, Device, Service, Router, Default/);
  assert.equal(cause(() => v.body(identity, 'create', { name: 'a', type: 'Device', isAdmin: 'no' })).field, 'isAdmin');
  const cost = cause(() => v.body(identity, 'patch', { defaultHostingCost: 65536 }));
  assert.deepEqual([cost.field, cost.value], ['defaultHostingCost', '65536']);
});

test('attributes may not look like roles', () => {
  const c = cause(() => v.body(identity, 'patch', { roleAttributes: ['ok', '#sales'] }));
  assert.equal(c.field, 'roleAttributes.1');
  assert.equal(c.value, '#sales');
});

test('patch accepts any subset and null where the field is nullable', () => {
  assert.ok(v.body(identity, 'patch', {}));
  assert.ok(v.body(identity, 'patch', { roleAttributes: null, externalId: null }));
  assert.equal(cause(() => v.body(identity, 'patch', { name: null })).field, 'name');
});

test('enrollment is accepted on create only', () => {
  assert.ok(v.body(identity, 'create', { name: 'a', type: 'User', isAdmin: false, enrollment: { ott: true } }));
  assert.equal(cause(() => v.body(identity, 'patch', { enrollment: { ott: true } })).field, 'enrollment');
});

test('a rejected password is never echoed back', () => {
  const authenticator = resource('authenticator');
  const c = cause(() => v.body(authenticator, 'patch', { password: 'abc' }));
  assert.equal(c.field, 'password');
  assert.equal(c.value, '<redacted>');
});
