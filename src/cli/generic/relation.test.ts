import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { identity } from '../../resources/identity.js';
import { buildRelationList, runRelationList } from './relation.js';
import type { RelationListOptions } from './relation.js';
import { fakeApi } from '../testing/fake-api.js';
import { capture, parse } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';

describe('related lists', () => {
  it('take the parent and an optional filter', async () => {
    const spy = capture<RelationListOptions>();
    await parse(buildRelationList(testDeps(), identity, 'authenticators', spy.run), [
      'laptop-7',
      'method = "updb"',
      '--all',
    ]);
    const o = spy.last();
    assert.deepEqual(
      [o.parentRef, o.filter, o.all, o.def.name, o.relation],
      ['laptop-7', 'method = "updb"', true, 'authenticator', 'authenticators'],
    );
  });

  it('name their --dial and --bind flags in their description, where policies of a type can narrow them', () => {
    const services = buildRelationList(testDeps(), identity, 'services');
    assert.equal(
      services.description(),
      'Services the identity may dial or bind (--dial or --bind: through policies of that type only)',
    );
    assert.equal(
      buildRelationList(testDeps(), identity, 'authenticators').description(),
      "The identity's authenticators",
    );
  });

  it('are built only from relations in the catalogue', () => {
    assert.throws(() => buildRelationList(testDeps(), identity, 'no-such-list'), /no relation 'no-such-list'/);
  });

  it('list under the parent with the related resource columns', async () => {
    const api = fakeApi({
      'GET /identities/a1': { id: 'a1', name: 'laptop-7' },
      'LIST /identities/a1/authenticators': [
        { id: 'au1', identity: { name: 'laptop-7' }, method: 'updb', username: 'alice' },
      ],
    });
    const deps = testDeps({ api });
    const spy = capture<RelationListOptions>();
    await parse(buildRelationList(deps, identity, 'authenticators', spy.run), ['a1']);
    await runRelationList(spy.last(), deps);
    assert.equal(deps.io.stdoutText(), 'ID   IDENTITY  METHOD  USERNAME\nau1  laptop-7  updb    alice\n');
  });
});
