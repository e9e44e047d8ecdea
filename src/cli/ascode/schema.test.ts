import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { networkSchema } from './schema.js';

const network = {
  configs: [{ name: 'web-cfg', configType: 'web.v1', data: { port: 80 } }],
  services: [{ name: 'web', encryptionRequired: true, configs: ['web-cfg'], roleAttributes: ['a'], tags: { a: 1 } }],
  servicePolicies: [{ name: 'dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#all'], serviceRoles: ['@web'] }],
};

describe('networkSchema', () => {
  const validate = new Ajv2020({ strict: false }).compile(networkSchema());

  it('accepts a network file as ctl export writes it', () => {
    assert.ok(validate(network), JSON.stringify(validate.errors));
  });

  it('refuses an unknown kind, an unknown field, an entity without a name and a wrong type', () => {
    assert.equal(validate({ ...network, gadgets: [] }), false);
    assert.equal(validate({ services: [{ name: 'web', colour: 'red' }] }), false);
    assert.equal(validate({ services: [{ encryptionRequired: true }] }), false);
    assert.equal(validate({ services: [{ name: 'web', encryptionRequired: 'yes' }] }), false);
    assert.equal(validate({ servicePolicies: [{ name: 'p', type: 'Sometimes' }] }), false);
  });

  // Regenerate with: ctl export --schema > docs/network-file.schema.json
  it('is published in docs/ as generated', async () => {
    const file = new URL('../../../docs/network-file.schema.json', import.meta.url);
    const published = JSON.parse(await readFile(file, 'utf8'));
    assert.deepEqual(published, networkSchema());
  });
});
