import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, notFound } from '../../protocol/errors.js';
import { identity } from '../../resources/identity.js';
import { EXIT } from '../../console/errors.js';
import { buildDelete, runDelete } from './delete.js';
import { dryRunDeps } from './dry-run.js';
import type { DeleteOptions } from './delete.js';
import { envelope, fakeApi, lookups } from '../testing/fake-api.js';
import { capture, parse } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';

const a = { id: 'a1', name: 'laptop-7' };
const b = { id: 'b2', name: 'laptop-8' };

/** The requests that deleting `refs` makes (a1 and b2 exist), and a DELETE of each found (`deletes: false`: none). */
function controller(refs: string[], extra: Record<string, unknown> = {}, { deletes = true } = {}) {
  const routes = lookups('identities', [a, b], refs);
  for (const found of [a, b].filter((e) => refs.includes(e.id) || refs.includes(e.name))) {
    if (deletes) routes[`DELETE /identities/${found.id}`] = {};
  }
  return fakeApi({ ...routes, ...extra });
}

const opts = (refs: string[], more: Partial<DeleteOptions> = {}): DeleteOptions => ({
  def: identity,
  refs,
  yes: true,
  ignoreMissing: false,
  ...more,
});

describe('delete flags', () => {
  it('takes several names, --yes and --ignore-missing, and drops repeats', async () => {
    const spy = capture<DeleteOptions>();
    await parse(buildDelete(testDeps(), identity, spy.run), [
      'laptop-7',
      'laptop-8',
      'laptop-7',
      '-y',
      '--ignore-missing',
    ]);
    assert.deepEqual(spy.last(), opts(['laptop-7', 'laptop-8'], { ignoreMissing: true }));
  });

  it('refuses without --yes when it cannot ask (exit 3), before any request', async () => {
    const api = fakeApi({});
    const command = buildDelete(testDeps({ api, tty: false }), identity);
    await assert.rejects(
      parse(command, ['laptop-7']),
      (err: Error & { exitCode: number }) => err.exitCode === EXIT.declined,
    );
    assert.equal(api.calls.length, 0);
  });

  it('takes --where instead of names, never both nor neither (exit 2)', async () => {
    const spy = capture<DeleteOptions>();
    await parse(buildDelete(testDeps(), identity, spy.run), ['--where', 'name contains "tmp"', '--yes']);
    assert.equal(spy.last().where, 'name contains "tmp"');
    await parse(buildDelete(testDeps(), identity, spy.run), ['--where', 'name = "limit 5"', '--yes']);
    for (const argv of [
      ['a1', '--where', 'true', '-y'],
      ['-y'],
      ['--where', ' ', '-y'],
      ['--where', 'true limit 5', '-y'],
      ['--where', 'name contains "x" skip 10', '-y'],
    ]) {
      await assert.rejects(
        parse(buildDelete(testDeps(), identity, spy.run), argv),
        (err: Error & { exitCode: number }) => err.exitCode === EXIT.usage,
      );
    }
  });

  it('refuses --where without --yes when it cannot ask (exit 3)', async () => {
    const api = fakeApi({});
    await assert.rejects(
      parse(buildDelete(testDeps({ api, tty: false }), identity), ['--where', 'true']),
      (err: Error & { exitCode: number }) => err.exitCode === EXIT.declined,
    );
    assert.equal(api.calls.length, 0);
  });

  it('answers to rm as well', () => {
    assert.deepEqual(buildDelete(testDeps(), identity).aliases(), ['rm']);
  });
});

describe('delete run', () => {
  it('lists the exact set on stderr, asks once, and deletes only that set', async () => {
    const api = controller(['laptop-7', 'b2']);
    const deps = testDeps({ api, tty: true, answers: { confirm: [true] } });
    await runDelete(opts(['laptop-7', 'b2'], { yes: false }), deps);
    assert.deepEqual(deps.prompts, ['Delete these 2 identities?']);
    assert.match(deps.io.stderrText(), /about to delete 2 identities:\n {2}"laptop-7" \(a1\)\n {2}"laptop-8" \(b2\)\n/);
    assert.deepEqual(
      api.calls.filter((c) => c.method === 'DELETE').map((c) => c.path),
      ['/identities/a1', '/identities/b2'],
    );
    assert.equal(deps.io.stdoutText(), '');
  });

  it('deletes nothing when the answer is no (exit 3)', async () => {
    const api = controller(['a1'], {}, { deletes: false });
    await assert.rejects(
      runDelete(opts(['a1'], { yes: false }), testDeps({ api, tty: true, answers: { confirm: [false] } })),
      (err: Error & { exitCode: number }) => err.exitCode === EXIT.declined,
    );
    assert.ok(!api.calls.some((c) => c.method === 'DELETE'));
  });

  it('fails with exit 5 on a single name that matches nothing', async () => {
    await assert.rejects(
      runDelete(opts(['ghost']), testDeps({ api: controller(['ghost']) })),
      (err: Error & { exitCode: number }) => {
        assert.equal(err.exitCode, EXIT.notFound);
        assert.equal(err.message, 'no identity named or with id "ghost"');
        return true;
      },
    );
  });

  it('skips missing names with --ignore-missing', async () => {
    const deps = testDeps({ api: controller(['ghost', 'a1']) });
    await runDelete(opts(['ghost', 'a1'], { ignoreMissing: true }), deps);
    assert.match(deps.io.stderrText(), /identity "ghost" not found, skipped/);
    assert.match(deps.io.stderrText(), /deleted identity "laptop-7" \(a1\)/);
  });

  it('keeps going past failures and exits with the most severe code', async () => {
    const refs = ['ghost', 'a1', 'b2'];
    const api = controller(refs, { 'DELETE /identities/a1': new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY') });
    const deps = testDeps({ api });
    await assert.rejects(runDelete(opts(refs), deps), (err: Error & { exitCode: number }) => {
      assert.equal(err.exitCode, EXIT.rejected);
      assert.equal(err.message, '2 of 3 identities not deleted');
      return true;
    });
    const stderr = deps.io.stderrText();
    assert.match(stderr, /^error: ghost: no identity named or with id "ghost"$/m);
    assert.match(stderr, /^error: "laptop-7" \(a1\): .*CAN_NOT_DELETE_REFERENCED_ENTITY/m);
    assert.match(stderr, /deleted identity "laptop-8" \(b2\)/);
  });

  it('prints the ids gone with -o json|yaml, also when others failed, and nothing for the table', async () => {
    const refused = { 'DELETE /identities/a1': new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY') };
    const json = testDeps({ api: controller(['a1', 'laptop-8'], refused), globals: { output: 'json' } });
    await assert.rejects(runDelete(opts(['a1', 'laptop-8']), json));
    assert.deepEqual(JSON.parse(json.io.stdoutText()), ['b2']);
    const gone = { 'DELETE /identities/b2': notFound('identity', 'b2') };
    const yaml = testDeps({ api: controller(['a1', 'b2'], gone), globals: { output: 'yaml' } });
    await runDelete(opts(['a1', 'b2'], { ignoreMissing: true }), yaml);
    assert.equal(yaml.io.stdoutText(), '- a1\n- b2\n');
    const table = testDeps({ api: controller(['a1']) });
    await runDelete(opts(['a1']), table);
    assert.equal(table.io.stdoutText(), '');
  });

  it('prints nothing as deleted under --dry-run, and sends no DELETE', async () => {
    const api = controller(['a1'], {}, { deletes: false });
    const deps = testDeps({ api, globals: { output: 'json' } });
    await runDelete(opts(['a1'], { dryRun: true }), dryRunDeps(deps));
    // The planned request alone: no list of the ids gone after it.
    assert.deepEqual(JSON.parse(deps.io.stdoutText()), { method: 'DELETE', path: '/edge/management/v1/identities/a1' });
  });
});

describe('delete --where', () => {
  const rows = Array.from({ length: 25 }, (_, i) => ({ id: `t${i}`, name: `tmp-${i}` }));
  /** Pages of the matches as the controller serves them, and a DELETE for each (`deletes: false`: none). */
  function matching(found: typeof rows, extra: Record<string, unknown> = {}, { deletes = true } = {}) {
    const routes: Record<string, unknown> = {
      'LIST /identities': (call: { query: { limit: number; offset: number } }) => envelope(found, call.query),
    };
    if (deletes) for (const r of found) routes[`DELETE /identities/${r.id}`] = {};
    return fakeApi({ ...routes, ...extra });
  }

  it('reads every page first, shows the count and first names, asks once, deletes each, says how many', async () => {
    const api = matching(rows);
    const deps = testDeps({ api, tty: true, answers: { confirm: [true] } });
    await runDelete(opts([], { yes: false, where: 'name contains "tmp-"' }), deps);
    assert.deepEqual(api.calls[0].query, { filter: 'name contains "tmp-"', limit: 500, offset: 0 });
    assert.deepEqual(deps.prompts, ['Delete these 25 identities?']);
    const stderr = deps.io.stderrText();
    assert.match(stderr, /^about to delete 25 identities:\n {2}"tmp-0" \(t0\)\n/);
    assert.match(stderr, /"tmp-19" \(t19\)\n {2}\.\.\. and 5 more\n/);
    assert.ok(!stderr.includes('tmp-20'));
    assert.equal(api.calls.filter((c) => c.method === 'DELETE').length, 25);
    assert.match(stderr, /deleted 25 of 25 identities\n$/);
  });

  it('follows pages beyond the first', async () => {
    const api = matching(rows, {
      'LIST /identities': (call: { query: { offset: number } }) =>
        envelope(rows, { limit: 10, offset: call.query.offset }),
    });
    await runDelete(opts([], { where: 'true' }), testDeps({ api }));
    assert.deepEqual(
      api.calls.filter((c) => c.method === 'GET').map((c) => c.query?.offset),
      [0, 10, 20],
    );
    assert.equal(api.calls.filter((c) => c.method === 'DELETE').length, 25);
  });

  it('succeeds, deleting nothing, when nothing matches', async () => {
    const deps = testDeps({ api: matching([]) });
    await runDelete(opts([], { where: 'name = "none"' }), deps);
    assert.match(deps.io.stderrText(), /no identities match name = "none": nothing to delete/);
    const json = testDeps({ api: matching([]), globals: { output: 'json' } });
    await runDelete(opts([], { where: 'name = "none"' }), json);
    assert.equal(json.io.stdoutText(), '[]\n');
  });

  it('deletes nothing when the answer is no (exit 3)', async () => {
    const api = matching(rows.slice(0, 2), {}, { deletes: false });
    await assert.rejects(
      runDelete(opts([], { yes: false, where: 'true' }), testDeps({ api, tty: true, answers: { confirm: [false] } })),
      (err: Error & { exitCode: number }) => err.exitCode === EXIT.declined,
    );
    assert.ok(!api.calls.some((c) => c.method === 'DELETE'));
  });

  it('goes on past a refusal and exits with its code, counting what was deleted', async () => {
    const api = matching(rows.slice(0, 3), {
      'DELETE /identities/t1': new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY'),
    });
    const deps = testDeps({ api });
    await assert.rejects(runDelete(opts([], { where: 'true' }), deps), (err: Error & { exitCode: number }) => {
      assert.equal(err.exitCode, EXIT.rejected);
      assert.equal(err.message, '1 of 3 identities not deleted');
      return true;
    });
    assert.match(deps.io.stderrText(), /^error: "tmp-1" \(t1\): .*CAN_NOT_DELETE_REFERENCED_ENTITY/m);
    assert.match(deps.io.stderrText(), /deleted 2 of 3 identities/);
  });
});
