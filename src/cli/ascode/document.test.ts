import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FailureError } from '../../console/errors.js';
import { toFileEntity } from './document.js';
import { fileKind } from '../testing/kinds.js';

const names: Record<string, Record<string, string>> = {
  identity: { i1: 'laptop' },
  service: { s1: 'web' },
  config: { c1: 'web-cfg', c2: 'api-cfg' },
};
const nameOf = (resource: string, id: string) => names[resource]?.[id];

describe('toFileEntity', () => {
  it('writes references, reference lists and @roles by name, sets sorted, and no id or timestamps', () => {
    const row = {
      id: 's1',
      name: 'web',
      createdAt: 'x',
      encryptionRequired: true,
      configs: ['c1', 'c2'],
      roleAttributes: ['z', 'a'],
      tags: { b: 1, a: 2 },
      _links: {},
    };
    assert.deepEqual(toFileEntity(fileKind('service'), row, nameOf), {
      name: 'web',
      roleAttributes: ['a', 'z'],
      configs: ['api-cfg', 'web-cfg'],
      encryptionRequired: true,
      tags: { a: 2, b: 1 },
    });
    const policy = { id: 'p', name: 'dial', type: 'Dial', identityRoles: ['@i1', '#all'], serviceRoles: ['@s1'] };
    const out = toFileEntity(fileKind('service-policy'), policy, nameOf);
    assert.deepEqual(out.identityRoles, ['#all', '@laptop']);
    assert.deepEqual(out.serviceRoles, ['@web']);
  });

  it('takes a reference by the name served beside it and writes it under the key without Id', () => {
    const configType = { id: 't9', name: 'intercept.v1' };
    const row = { id: 'c', name: 'cfg', configTypeId: 't9', configType, data: { b: [2, 1], a: {} } };
    const expected = { name: 'cfg', configType: 'intercept.v1', data: { a: {}, b: [2, 1] } };
    assert.deepEqual(toFileEntity(fileKind('config'), row, nameOf), expected);
  });

  it("names a signer's enrollment auth policy, which the controller keeps as a plain id", () => {
    const row = { id: 'x', name: 'idp', enabled: true, enrollAuthPolicyId: 'p1' };
    const named = (resource: string, id: string) => (resource === 'auth-policy' && id === 'p1' ? 'corp' : undefined);
    assert.deepEqual(toFileEntity(fileKind('external-jwt-signer'), row, named), {
      name: 'idp',
      enabled: true,
      enrollAuthPolicy: 'corp',
    });
  });

  it('fails naming the entity and field when a role names an entity the controller does not have', () => {
    const policy = { id: 'p', name: 'dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['@gone'] };
    assert.throws(
      () => toFileEntity(fileKind('service-policy'), policy, nameOf),
      (err: unknown) => {
        assert.ok(err instanceof FailureError);
        assert.match(err.message, /service policy "dial": identityRoles names identity "gone"/);
        return true;
      },
    );
  });
});
