import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { notFound } from '../../protocol/errors.js';
import type { ResourceDef } from '../../resources/types.js';
import { buildCreate, runCreate } from './create.js';
import type { CreateOptions } from './create.js';
import { capture, fakeApi, parse, testDeps } from './testing.js';

/** A small resource exercising what generic create handles: a name, a required enum, a required boolean, a reference. */
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
    size: { type: { kind: 'enum', values: ['S', 'L'] }, description: 'Size', create: 'required', replace: 'required', patch: 'optional' },
    isShiny: { type: { kind: 'boolean' }, description: 'Shiny', create: 'required', replace: 'required', patch: 'optional' },
    ownerId: { type: { kind: 'ref', resource: 'identity' }, description: 'Owner', create: 'optional', replace: 'optional', patch: 'optional' },
  },
};

describe('generic create', () => {
  it('takes the name as an argument and the fields as flags', async () => {
    const spy = capture<CreateOptions>();
    await parse(buildCreate(testDeps(), widget, spy.run), ['w1', '--size', 'L', '--owner', 'alice', '--tags', 'a=b']);
    assert.deepEqual(spy.last(), {
      def: widget,
      name: 'w1',
      input: { body: { size: 'L', tags: { a: 'b' } }, refs: [{ field: 'ownerId', resource: 'identity', value: 'alice' }] },
    });
  });

  it('names a missing required flag as a usage error', async () => {
    await assert.rejects(parse(buildCreate(testDeps(), widget, capture<CreateOptions>().run), ['w1']), /missing --size/);
  });

  it('is not built for a resource that cannot be created', () => {
    assert.throws(() => buildCreate(testDeps(), { ...widget, operations: ['list'] }), /needs the 'create' operation/);
  });

  it('POSTs the body with references resolved and required booleans false, then prints the id', async () => {
    const api = fakeApi({
      'GET /identities/alice': notFound('identity', 'alice'),
      'LIST /identities': [{ id: 'i7', name: 'alice' }],
      'POST /widgets': { id: 'w-1', _links: {} },
    });
    const deps = testDeps({ api });
    await runCreate({ def: widget, name: 'w1', input: { body: { size: 'L' }, refs: [{ field: 'ownerId', resource: 'identity', value: 'alice' }] } }, deps);
    assert.deepEqual(api.calls.at(-1)?.body, { isShiny: false, name: 'w1', size: 'L', ownerId: 'i7' });
    assert.equal(deps.io.stdoutText(), 'w-1\n');
    assert.equal(deps.io.stderrText(), 'created widget "w1" with id w-1\n');
  });
});
