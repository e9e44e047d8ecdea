import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { notFound } from '../../protocol/errors.js';
import { service } from '../../resources/service.js';
import type { ResourceDef } from '../../resources/types.js';
import { announceCreated, createEntity, requiredBooleans } from './create.js';
import { fakeApi } from '../testing/fake-api.js';
import { testDeps } from '../testing/test-deps.js';

/** A small resource exercising the create steps: a name, a required enum, a required boolean, a reference. */
const widget: ResourceDef = {
  name: 'widget',
  plural: 'widgets',
  label: 'widget',
  api: 'management',
  operations: ['list', 'get', 'create', 'patch', 'delete'],
  table: 'widgets',
  description: 'A test resource',
  fields: {
    name: { type: { kind: 'string' }, description: 'Name', create: 'required', replace: 'required', patch: 'optional' },
    size: {
      type: { kind: 'enum', values: ['S', 'L'] },
      description: 'Size',
      create: 'required',
      replace: 'required',
      patch: 'optional',
    },
    isShiny: {
      type: { kind: 'boolean' },
      description: 'Shiny',
      create: 'required',
      replace: 'required',
      patch: 'optional',
    },
    ownerId: {
      type: { kind: 'ref', resource: 'identity' },
      description: 'Owner',
      create: 'optional',
      replace: 'optional',
      patch: 'optional',
    },
  },
};

describe('create steps', () => {
  it('POST the body with references resolved and required booleans false, then print the id', async () => {
    const api = fakeApi({
      'GET /identities/alice': notFound('identity', 'alice'),
      'LIST /identities': [{ id: 'i7', name: 'alice' }],
      'POST /widgets': { id: 'w-1', _links: {} },
    });
    const deps = testDeps({ api });
    const input = { body: { size: 'L' }, refs: [{ field: 'ownerId', resource: 'identity', value: 'alice' }] };
    const id = await createEntity(api, widget, { ...requiredBooleans(widget), name: 'w1' }, input);
    await announceCreated(deps, widget, 'w1', id);
    assert.deepEqual(api.calls.at(-1)?.body, { isShiny: false, name: 'w1', size: 'L', ownerId: 'i7' });
    assert.equal(deps.io.stdoutText(), 'w-1\n');
    assert.equal(deps.io.stderrText(), 'created widget "w1" with id w-1\n');
  });

  it('-o json and -o yaml print the new entity as the controller holds it instead of the bare id', async () => {
    const created = { id: 'w-1', name: 'w1', size: 'L', isShiny: false, code: '2E5427' };
    for (const [output, expected] of [
      ['json', JSON.stringify(created, null, 2)],
      ['yaml', 'id: w-1\nname: w1\nsize: L\nisShiny: false\ncode: "2E5427"'],
    ] as const) {
      const api = fakeApi({ 'GET /widgets/w-1': created });
      const deps = testDeps({ api, globals: { output } });
      await announceCreated(deps, widget, 'w1', 'w-1');
      assert.equal(deps.io.stdoutText(), `${expected}\n`);
      assert.equal(deps.io.stderrText(), 'created widget "w1" with id w-1\n');
    }
  });

  it("a required boolean takes the noun's declared CLI default instead of false", () => {
    assert.deepEqual(requiredBooleans(widget), { isShiny: false });
    assert.deepEqual(requiredBooleans(service), { encryptionRequired: true });
  });
});
