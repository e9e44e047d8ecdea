import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import type { ResourceDef } from '../../resources/index.js';
import { bodySchema } from './schemas.js';

/** A posture-check-like resource: `domains` belongs to DOMAIN checks only. */
const check: ResourceDef = {
  name: 'check',
  plural: 'checks',
  label: 'check',
  api: 'management',
  operations: ['create', 'patch'],
  table: 'checks',
  description: 'test',
  fields: {
    typeId: {
      type: { kind: 'enum', values: ['DOMAIN', 'OS'] },
      description: '',
      create: 'required',
      replace: 'required',
      patch: 'optional',
    },
    domains: {
      type: { kind: 'attributes' },
      description: '',
      create: 'required',
      replace: 'required',
      patch: 'optional',
      when: { field: 'typeId', in: ['DOMAIN'] },
    },
  },
};

test('a field declared `when` is checked, required for its discriminator values, left to behaviour otherwise', () => {
  const ajv = new Ajv({ strict: false });
  const create = ajv.compile(bodySchema(check, 'create'));
  assert.equal(create({ typeId: 'DOMAIN', domains: ['corp'] }), true);
  assert.equal(create({ typeId: 'DOMAIN' }), false, 'required for DOMAIN');
  assert.equal(create({ typeId: 'DOMAIN', domains: 'corp' }), false, 'checked for DOMAIN');
  assert.equal(create({ typeId: 'OS' }), true);
  assert.equal(
    create({ typeId: 'OS', domains: 'anything' }),
    true,
    'not an OS body member: unchecked, dropped by the behaviour',
  );
  assert.equal(create({ typeId: 'OS', nonsense: 1 }), false, 'unknown fields are still refused');
  const patch = ajv.compile(bodySchema(check, 'patch'));
  assert.equal(patch({ domains: ['corp'] }), true, 'a patch without the discriminator may carry it');
  assert.equal(patch({ domains: 'corp' }), false, 'and it is checked');
});
