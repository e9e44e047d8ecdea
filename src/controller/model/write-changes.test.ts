import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { updatesAny } from './write-changes.js';
import type { Row } from '../store/repository.js';

describe('updatesAny', () => {
  const existing: Row = {
    id: 'x',
    createdAt: '',
    updatedAt: '',
    tags: {},
    isSystem: false,
    refNames: {},
    roleAttributes: ['a'],
    type: 'Dial',
    postureCheckRoles: null,
  };

  it('is false for a create, whatever it sets', () => {
    assert.equal(updatesAny({ values: { roleAttributes: ['b'] } }, ['roleAttributes']), false);
  });

  it('is true when a listed field gets another value, false when it keeps its value or is not written', () => {
    assert.equal(updatesAny({ existing, values: { roleAttributes: ['b'] } }, ['roleAttributes']), true);
    assert.equal(updatesAny({ existing, values: { type: 'Bind' } }, ['roleAttributes', 'type']), true);
    assert.equal(updatesAny({ existing, values: { roleAttributes: ['a'] } }, ['roleAttributes']), false);
    assert.equal(
      updatesAny({ existing, values: { type: 'Bind' } }, ['roleAttributes']),
      false,
      'type is not asked about',
    );
    assert.equal(updatesAny({ existing, values: {} }, ['roleAttributes', 'type']), false);
  });

  it('takes absent, null and an empty list for the same nothing', () => {
    assert.equal(updatesAny({ existing, values: { postureCheckRoles: [] } }, ['postureCheckRoles']), false);
    assert.equal(
      updatesAny({ existing: { ...existing, postureCheckRoles: [] }, values: { postureCheckRoles: null } }, [
        'postureCheckRoles',
      ]),
      false,
    );
    assert.equal(updatesAny({ existing, values: { postureCheckRoles: ['#x'] } }, ['postureCheckRoles']), true);
    assert.equal(updatesAny({ existing, values: { roleAttributes: [] } }, ['roleAttributes']), true);
  });
});
