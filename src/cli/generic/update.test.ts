import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { identity } from '../../resources/identity.js';
import { buildUpdate, mergeAttributes, runUpdate } from './update.js';
import type { UpdateOptions } from './update.js';
import { fakeApi } from '../testing/fake-api.js';
import { capture, parse } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';

async function options(argv: string[]): Promise<UpdateOptions> {
  const spy = capture<UpdateOptions>();
  await parse(buildUpdate(testDeps(), identity, spy.run), argv);
  return spy.last();
}

const current = { id: 'a1', name: 'laptop-7', roleAttributes: ['sales', 'emea'] };

describe('update flags', () => {
  it('carries only the flags given', async () => {
    const o = await options(['laptop-7', '--name', 'laptop-8', '--admin']);
    assert.deepEqual(o.input, { body: { name: 'laptop-8', isAdmin: true }, refs: [] });
    assert.equal(o.addAttributes, undefined);
  });

  it('reads attribute additions and removals', async () => {
    const o = await options(['laptop-7', '--add-attributes', 'ops,dev', '--remove-attributes', 'sales']);
    assert.deepEqual([o.addAttributes, o.removeAttributes], [['ops', 'dev'], ['sales']]);
  });

  it('rejects nothing to update, naming the flags', async () => {
    await assert.rejects(options(['laptop-7']), (err: Error & { exitCode: number; details: string[] }) => {
      assert.equal(err.exitCode, 2);
      assert.match(err.details[0], /--name, .*--attributes.*--add-attributes, --remove-attributes/);
      return true;
    });
  });

  it('rejects --attributes with --add-attributes', async () => {
    await assert.rejects(options(['laptop-7', '-a', 'x', '--add-attributes', 'y']), /cannot be used with/);
  });
});

describe('update run', () => {
  it('PATCHes only the given fields', async () => {
    const api = fakeApi({ 'GET /identities/a1': current, 'PATCH /identities/a1': {} });
    const deps = testDeps({ api });
    await runUpdate({ def: identity, ref: 'a1', input: { body: { isAdmin: false }, refs: [] } }, deps);
    assert.deepEqual(api.calls.at(-1), { method: 'PATCH', path: '/identities/a1', body: { isAdmin: false } });
    assert.equal(deps.io.stderrText(), 'updated identity "a1"\n');
  });

  it('names a renamed entity by its new name', async () => {
    const api = fakeApi({ 'GET /identities/a1': current, 'PATCH /identities/a1': {} });
    const deps = testDeps({ api });
    await runUpdate({ def: identity, ref: 'a1', input: { body: { name: 'laptop-8' }, refs: [] } }, deps);
    assert.deepEqual(api.calls.at(-1), { method: 'PATCH', path: '/identities/a1', body: { name: 'laptop-8' } });
    assert.equal(deps.io.stderrText(), 'updated identity "laptop-8"\n');
  });

  it('adds and removes attributes as GET, merge, PATCH of the whole set', async () => {
    const api = fakeApi({ 'GET /identities/a1': current, 'PATCH /identities/a1': {} });
    await runUpdate(
      { def: identity, ref: 'a1', input: { body: {}, refs: [] }, addAttributes: ['ops'], removeAttributes: ['sales'] },
      testDeps({ api }),
    );
    assert.deepEqual(api.calls.at(-1)?.body, { roleAttributes: ['emea', 'ops'] });
  });

  it('sends [] (never null) when the last attribute is removed', async () => {
    const api = fakeApi({ 'GET /identities/a1': current, 'PATCH /identities/a1': {} });
    await runUpdate(
      { def: identity, ref: 'a1', input: { body: {}, refs: [] }, removeAttributes: ['sales', 'emea'] },
      testDeps({ api }),
    );
    assert.deepEqual(api.calls.at(-1)?.body, { roleAttributes: [] });
  });

  it('sends nothing when the change would change nothing', async () => {
    const api = fakeApi({ 'GET /identities/a1': current });
    const deps = testDeps({ api });
    await runUpdate({ def: identity, ref: 'a1', input: { body: {}, refs: [] }, addAttributes: ['sales'] }, deps);
    assert.ok(api.calls.every((c) => c.method === 'GET'));
    assert.equal(deps.io.stderrText(), 'identity "a1" is already up to date\n');
  });

  it('prints the entity after the change with -o json, and nothing on stdout for the table', async () => {
    const changed = { ...current, isAdmin: true };
    const api = fakeApi({ 'GET /identities/a1': changed, 'PATCH /identities/a1': {} });
    const deps = testDeps({ api, globals: { output: 'json' } });
    await runUpdate({ def: identity, ref: 'a1', input: { body: { isAdmin: true }, refs: [] } }, deps);
    assert.deepEqual(JSON.parse(deps.io.stdoutText()), changed);
    assert.deepEqual(
      api.calls.map((c) => c.method),
      ['GET', 'PATCH', 'GET'],
    );
    const table = testDeps({ api: fakeApi({ 'GET /identities/a1': current, 'PATCH /identities/a1': {} }) });
    await runUpdate({ def: identity, ref: 'a1', input: { body: { isAdmin: true }, refs: [] } }, table);
    assert.equal(table.io.stdoutText(), '');
  });

  it('prints the unchanged entity with -o yaml when there was nothing to change', async () => {
    const deps = testDeps({ api: fakeApi({ 'GET /identities/a1': current }), globals: { output: 'yaml' } });
    await runUpdate({ def: identity, ref: 'a1', input: { body: {}, refs: [] }, addAttributes: ['sales'] }, deps);
    assert.equal(deps.io.stdoutText(), 'id: a1\nname: laptop-7\nroleAttributes:\n  - sales\n  - emea\n');
  });

  it('merges attribute sets without duplicates', () => {
    assert.deepEqual(mergeAttributes(['a', 'b'], ['b', 'c'], ['a']), ['b', 'c']);
  });
});
