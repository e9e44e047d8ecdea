import assert from 'node:assert/strict';
import { ApiError } from '../../protocol/errors.js';
import { describe, it } from 'node:test';
import { authPolicy } from '../../resources/auth-policy.js';
import { identity } from '../../resources/identity.js';
import { session } from '../../resources/session.js';
import { buildList, runList } from './list.js';
import type { ListOptions } from './list.js';
import { envelope, fakeApi } from '../testing/fake-api.js';
import { capture, parse } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';

const ids = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `i${i + 1}`, name: `host-${i + 1}`, roleAttributes: [] }));

async function options(argv: string[], def = identity, output?: string): Promise<ListOptions> {
  const spy = capture<ListOptions>();
  await parse(buildList(testDeps({ globals: { output } }), def, spy.run), argv);
  return spy.last();
}

describe('list flags', () => {
  it('reads the filter, paging and role flags', async () => {
    const o = await options([
      'name contains "h"',
      '--limit',
      '50',
      '--offset',
      '100',
      '--role-filter',
      '#a',
      '--role-filter',
      '#b',
      '--role-semantic',
      'AllOf',
      '-q',
    ]);
    assert.equal(o.filter, 'name contains "h"');
    assert.equal(o.limit, 50);
    assert.equal(o.offset, 100);
    assert.deepEqual(o.roleFilter, ['#a', '#b']);
    assert.equal(o.roleSemantic, 'AllOf');
    assert.equal(o.quiet, true);
    assert.equal(o.path, '/identities');
  });

  it('takes the output format from the global flag', async () => {
    assert.equal((await options([], identity, 'json')).format, 'json');
    assert.equal((await options([])).format, 'table');
  });

  const usage: Array<[string, string[]]> = [
    ['--all with --limit', ['--all', '--limit', '5']],
    ['--limit above the maximum', ['--limit', '501']],
    ['--limit 0', ['--limit', '0']],
    ['a negative --offset', ['--offset', '-1']],
    ['an unknown --role-semantic', ['--role-semantic', 'OneOf']],
  ];
  for (const [what, argv] of usage) {
    it(`rejects ${what}`, async () => {
      await assert.rejects(options(argv));
    });
  }

  it('refuses a --role-filter that is no role before anything is sent, saying how to write one', async () => {
    await assert.rejects(
      options(['--role-filter', 'sales']),
      /"sales" is no role: write #attribute, @name-or-id or #all/,
    );
  });

  it('offers role filters only on resources with role attributes', async () => {
    await assert.rejects(options(['--role-filter', '#a'], authPolicy), /unknown option/);
  });

  it('answers to ls as well', () => {
    assert.deepEqual(buildList(testDeps(), identity).aliases(), ['ls']);
  });
});

describe('list run', () => {
  const base: ListOptions = { def: identity, path: '/identities', quiet: false, format: 'table' };

  it('prints one page as a table and the footer with the next page on stderr', async () => {
    const api = fakeApi({ 'LIST /identities': (call: { query: object }) => envelope(ids(23), call.query) });
    const deps = testDeps({ api });
    await runList(base, deps);
    assert.equal(deps.io.stdoutText().trimEnd().split('\n').length, 11);
    assert.equal(deps.io.stderrText(), 'showing 1-10 of 23 (next page: --offset 10, or --all)\n');
  });

  it("shows the names of references served as bare ids (a session's identity), in tables only", async () => {
    const sessions = [
      { id: 's1', type: 'Dial', service: { id: 'v1', name: 'web' }, identityId: 'i1', apiSessionId: 'a1' },
      { id: 's2', type: 'Bind', service: { id: 'v1', name: 'web' }, identityId: 'i2', apiSessionId: 'a2' },
      { id: 's3', type: 'Dial', service: { id: 'v1', name: 'web' }, identityId: 'gone', apiSessionId: 'a3' },
    ];
    const api = fakeApi({
      'LIST /sessions': sessions,
      'LIST /identities': [
        { id: 'i1', name: 'laptop-7' },
        { id: 'i2', name: 'web-host' },
      ],
    });
    const deps = testDeps({ api });
    await runList({ ...base, def: session, path: '/sessions' }, deps);
    assert.deepEqual(
      api.calls[1].query,
      { filter: 'id in ["i1", "i2", "gone"]', limit: 500 },
      'one lookup for every id',
    );
    const lines = deps.io.stdoutText().trimEnd().split('\n');
    assert.match(lines[0]!, /IDENTITY/i);
    assert.deepEqual(
      lines.slice(1).map((l) => l.split(/\s+/)[3]),
      ['laptop-7', 'web-host', 'gone'],
    );

    const json = testDeps({ api: fakeApi({ 'LIST /sessions': sessions }) });
    await runList({ ...base, def: session, path: '/sessions', format: 'json' }, json);
    assert.deepEqual(JSON.parse(json.io.stdoutText()), sessions, 'json prints what was served, with no lookup');
  });

  it('passes the filter, paging and role filters to the controller', async () => {
    const api = fakeApi({ 'LIST /identities': [] });
    await runList(
      { ...base, filter: 'isAdmin = true', limit: 5, offset: 5, roleFilter: ['#a'], roleSemantic: 'AnyOf' },
      testDeps({ api }),
    );
    assert.deepEqual(api.calls[0].query, {
      filter: 'isAdmin = true',
      limit: 5,
      offset: 5,
      roleFilter: ['#a'],
      roleSemantic: 'AnyOf',
    });
  });

  it('resolves @name in role filters to @id before sending, and leaves #attributes alone', async () => {
    const api = fakeApi({
      'GET /identities/abc': { id: 'abc', name: 'first' },
      'GET /identities/laptop-7': new ApiError('NOT_FOUND'),
      'LIST /identities': (call: { query: { filter?: string } }) =>
        call.query.filter === 'name = "laptop-7"' ? [{ id: 'L7', name: 'laptop-7' }] : [],
    });
    await runList({ ...base, roleFilter: ['@abc', '@laptop-7', '#sales'] }, testDeps({ api }));
    assert.deepEqual(api.calls.at(-1)?.query?.roleFilter, ['@abc', '@L7', '#sales']);
  });

  it('follows every page with --all, 500 at a time', async () => {
    const api = fakeApi({ 'LIST /identities': (call: { query: object }) => envelope(ids(1203), call.query) });
    const deps = testDeps({ api, globals: {} });
    await runList({ ...base, all: true, format: 'json' }, deps);
    assert.equal(JSON.parse(deps.io.stdoutText()).length, 1203);
    assert.deepEqual(
      api.calls.map((c) => [c.query?.limit, c.query?.offset]),
      [
        [500, 0],
        [500, 500],
        [500, 1000],
      ],
    );
    assert.equal(deps.io.stderrText(), '');
  });

  it('keeps stdout machine-clean and warns on stderr when json leaves rows behind', async () => {
    const api = fakeApi({ 'LIST /identities': (call: { query: object }) => envelope(ids(12), call.query) });
    const deps = testDeps({ api });
    await runList({ ...base, format: 'json' }, deps);
    assert.equal(JSON.parse(deps.io.stdoutText()).length, 10);
    assert.match(deps.io.stderrText(), /showing 1-10 of 12/);
  });

  it('says so on stderr when nothing matches, and exits normally', async () => {
    const deps = testDeps({ api: fakeApi({ 'LIST /identities': [] }) });
    await runList(base, deps);
    assert.equal(deps.io.stdoutText(), '');
    assert.equal(deps.io.stderrText(), 'no identities found\n');
  });
});
