import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, notFound } from '../../protocol/errors.js';
import { identity } from '../../resources/identity.js';
import { EXIT } from '../../console/errors.js';
import { buildDelete, runDelete } from './delete.js';
import type { DeleteOptions } from './delete.js';
import { capture, fakeApi, parse, testDeps } from './testing.js';

const a = { id: 'a1', name: 'laptop-7' };
const b = { id: 'b2', name: 'laptop-8' };

/** GET by id answers for the ids; names resolve through the list filter. */
function controller(extra: Record<string, unknown> = {}) {
  return fakeApi({
    'GET /identities/a1': a,
    'GET /identities/b2': b,
    'GET /identities/laptop-7': notFound('identity', 'laptop-7'),
    'GET /identities/laptop-8': notFound('identity', 'laptop-8'),
    'GET /identities/ghost': notFound('identity', 'ghost'),
    'LIST /identities': (call: { query: { filter: string } }) => [a, b].filter((e) => call.query.filter === `name = "${e.name}"`),
    'DELETE /identities/a1': {},
    'DELETE /identities/b2': {},
    ...extra,
  });
}

const opts = (refs: string[], more: Partial<DeleteOptions> = {}): DeleteOptions => ({ def: identity, refs, yes: true, ignoreMissing: false, ...more });

describe('delete flags', () => {
  it('takes several names, --yes and --ignore-missing, and drops repeats', async () => {
    const spy = capture<DeleteOptions>();
    await parse(buildDelete(testDeps(), identity, spy.run), ['laptop-7', 'laptop-8', 'laptop-7', '-y', '--ignore-missing']);
    assert.deepEqual(spy.last(), opts(['laptop-7', 'laptop-8'], { ignoreMissing: true }));
  });

  it('refuses without --yes when it cannot ask (exit 3), before any request', async () => {
    const api = fakeApi({});
    const command = buildDelete(testDeps({ api, tty: false }), identity);
    await assert.rejects(parse(command, ['laptop-7']), (err: Error & { exitCode: number }) => err.exitCode === EXIT.declined);
    assert.equal(api.calls.length, 0);
  });

  it('answers to rm as well', () => {
    assert.deepEqual(buildDelete(testDeps(), identity).aliases(), ['rm']);
  });
});

describe('delete run', () => {
  it('lists the exact set on stderr, asks once, and deletes only that set', async () => {
    const api = controller();
    const deps = testDeps({ api, tty: true, confirms: [true] });
    await runDelete(opts(['laptop-7', 'b2'], { yes: false }), deps);
    assert.deepEqual(deps.prompts, ['Delete these 2 identities?']);
    assert.match(deps.io.stderrText(), /about to delete 2 identities:\n {2}"laptop-7" \(a1\)\n {2}"laptop-8" \(b2\)\n/);
    assert.deepEqual(api.calls.filter((c) => c.method === 'DELETE').map((c) => c.path), ['/identities/a1', '/identities/b2']);
    assert.equal(deps.io.stdoutText(), '');
  });

  it('deletes nothing when the answer is no (exit 3)', async () => {
    const api = controller();
    await assert.rejects(runDelete(opts(['a1'], { yes: false }), testDeps({ api, tty: true, confirms: [false] })), (err: Error & { exitCode: number }) => err.exitCode === EXIT.declined);
    assert.ok(!api.calls.some((c) => c.method === 'DELETE'));
  });

  it('fails with exit 5 on a single name that matches nothing', async () => {
    await assert.rejects(runDelete(opts(['ghost']), testDeps({ api: controller() })), (err: Error & { exitCode: number }) => {
      assert.equal(err.exitCode, EXIT.notFound);
      assert.equal(err.message, 'no identity named or with id "ghost"');
      return true;
    });
  });

  it('skips missing names with --ignore-missing', async () => {
    const deps = testDeps({ api: controller() });
    await runDelete(opts(['ghost', 'a1'], { ignoreMissing: true }), deps);
    assert.match(deps.io.stderrText(), /identity "ghost" not found, skipped/);
    assert.match(deps.io.stderrText(), /deleted identity "laptop-7" \(a1\)/);
  });

  it('keeps going past failures and exits with the most severe code', async () => {
    const api = controller({ 'DELETE /identities/a1': new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY') });
    const deps = testDeps({ api });
    await assert.rejects(runDelete(opts(['ghost', 'a1', 'b2']), deps), (err: Error & { exitCode: number }) => {
      assert.equal(err.exitCode, EXIT.rejected);
      assert.equal(err.message, '2 of 3 identities not deleted');
      return true;
    });
    const stderr = deps.io.stderrText();
    assert.match(stderr, /^error: ghost: no identity named or with id "ghost"$/m);
    assert.match(stderr, /^error: "laptop-7" \(a1\): .*CAN_NOT_DELETE_REFERENCED_ENTITY/m);
    assert.match(stderr, /deleted identity "laptop-8" \(b2\)/);
  });
});
