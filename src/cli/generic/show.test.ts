import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { notFound } from '../../protocol/errors.js';
import { apiSession } from '../../resources/api-session.js';
import { identity } from '../../resources/identity.js';
import { buildShow, runShow } from './show.js';
import type { ShowOptions } from './show.js';
import { fakeApi } from '../testing/fake-api.js';
import { capture, parse } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';

describe('show', () => {
  it('takes one name or id and the global format', async () => {
    const spy = capture<ShowOptions>();
    await parse(buildShow(testDeps({ globals: { output: 'yaml' } }), identity, spy.run), ['laptop-7']);
    assert.deepEqual(spy.last(), { def: identity, ref: 'laptop-7', format: 'yaml' });
  });

  it('requires the argument', async () => {
    await assert.rejects(
      parse(buildShow(testDeps(), identity, capture<ShowOptions>().run), []),
      /missing required argument/,
    );
  });

  it('names the argument after what the resource is addressed by', () => {
    assert.match(buildShow(testDeps(), identity).usage(), /<name-or-id>/);
    assert.match(buildShow(testDeps(), apiSession).usage(), /<id>/);
  });

  it('prints the detail of the entity found by name', async () => {
    const api = fakeApi({
      'GET /identities/laptop-7': notFound('identity', 'laptop-7'),
      'LIST /identities': [{ id: 'a1', name: 'laptop-7' }],
      'GET /identities/a1': { id: 'a1', name: 'laptop-7', isAdmin: true },
    });
    const deps = testDeps({ api });
    await runShow({ def: identity, ref: 'laptop-7', format: 'table' }, deps);
    assert.equal(deps.io.stdoutText(), 'id:      a1\nname:    laptop-7\nisAdmin: true\n');
  });
});
