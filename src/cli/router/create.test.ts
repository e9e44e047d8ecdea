import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { notFound } from '../../protocol/errors.js';
import { edgeRouter } from '../../resources/edge-router.js';
import { router } from '../../resources/router.js';
import { fakeApi } from '../testing/fake-api.js';
import { capture, parse } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';
import { buildRouterCreate, runRouterCreate, type RouterCreateOptions } from './create.js';
import { buildRouterReEnroll, runRouterReEnroll, type RouterReEnrollOptions } from './re-enroll.js';

async function createOptions(argv: string[], def = edgeRouter): Promise<RouterCreateOptions> {
  let seen: RouterCreateOptions | undefined;
  await parse(
    buildRouterCreate(testDeps(), def, async (_def, opts) => {
      seen = opts;
    }),
    argv,
  );
  assert.ok(seen, 'run was called');
  return seen;
}

const dir = mkdtempSync(join(tmpdir(), 'ctl-router-create-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('router create flags', () => {
  it('reads attributes, cost, --tunneler, --no-traversal and the JWT output', async () => {
    const o = await createOptions([
      'er-1',
      '-a',
      'public,eu',
      '--cost',
      '5',
      '--tunneler',
      '--no-traversal',
      '--jwt-output',
      'er-1.jwt',
      '--force',
    ]);
    assert.deepEqual(o, {
      name: 'er-1',
      input: {
        body: { roleAttributes: ['public', 'eu'], cost: 5, isTunnelerEnabled: true, noTraversal: true },
        refs: [],
      },
      jwtOutput: 'er-1.jwt',
      force: true,
    });
    assert.equal((await createOptions(['er-2', '--traversal'])).input.body.noTraversal, false);
    assert.equal('noTraversal' in (await createOptions(['er-3'])).input.body, false, 'nothing sent unless given');
  });

  it('refuses a cost out of bounds before any request', async () => {
    await assert.rejects(createOptions(['er-1', '--cost', '70000']), /70000|between|range/i);
  });

  it('transit routers take no --tunneler and no attributes', async () => {
    await assert.rejects(createOptions(['tr-1', '--tunneler'], router), /unknown option '--tunneler'/);
    await assert.rejects(createOptions(['tr-1', '-a', 'x'], router), /unknown option '-a'/);
  });
});

describe('router create run', () => {
  const created = { 'POST /edge-routers': { id: 'r1', _links: {} } };
  /** A controller that creates r1 and serves its enrollment JWT. */
  const router = { id: 'r1', name: 'er-1', enrollmentJwt: 'eyJ.erott.jwt' };
  const controller = () => fakeApi({ ...created, 'GET /edge-routers/r1': router });

  it('creates the router and prints its id', async () => {
    const api = fakeApi(created);
    const deps = testDeps({ api });
    await runRouterCreate(edgeRouter, { name: 'er-1', input: { body: { isTunnelerEnabled: true }, refs: [] } }, deps);
    assert.deepEqual(api.calls[0].body, { name: 'er-1', isTunnelerEnabled: true });
    assert.equal(deps.io.stdoutText(), 'r1\n');
  });

  it('writes the JWT to a file only the owner can read, or alone on stdout with -', async () => {
    const file = join(dir, 'er-1.jwt');
    const deps = testDeps({ api: controller() });
    await runRouterCreate(edgeRouter, { name: 'er-1', input: { body: {}, refs: [] }, jwtOutput: file }, deps);
    assert.equal(readFileSync(file, 'utf8'), 'eyJ.erott.jwt\n');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(deps.io.stdoutText(), 'r1\n');
    const toStdout = testDeps({ api: controller() });
    await runRouterCreate(edgeRouter, { name: 'er-1', input: { body: {}, refs: [] }, jwtOutput: '-' }, toStdout);
    assert.equal(toStdout.io.stdoutText(), 'eyJ.erott.jwt\n');
    assert.match(toStdout.io.stderrText(), /created edge router "er-1" with id r1/);
  });

  it('leaves no file behind when the controller refuses the router', async () => {
    const file = join(dir, 'refused.jwt');
    const api = fakeApi({ 'POST /edge-routers': new Error('refused') });
    await assert.rejects(
      runRouterCreate(edgeRouter, { name: 'x', input: { body: {}, refs: [] }, jwtOutput: file }, testDeps({ api })),
      /refused/,
    );
    assert.throws(() => statSync(file), /ENOENT/);
  });
});

describe('router re-enroll', () => {
  it('takes the router and the JWT output', async () => {
    const spy = capture<RouterReEnrollOptions>();
    await parse(buildRouterReEnroll(testDeps(), spy.run), ['er-1', '--jwt-output', '-']);
    assert.deepEqual(spy.last(), { ref: 'er-1', jwtOutput: '-', yes: false });
    await parse(buildRouterReEnroll(testDeps(), spy.run), ['er-1', '-y']);
    assert.equal(spy.last().yes, true);
  });

  it('posts re-enroll for the router found by name and prints the new JWT', async () => {
    const api = fakeApi({
      'GET /edge-routers/er-1': notFound('edge-router', 'er-1'),
      'LIST /edge-routers': [{ id: 'r1', name: 'er-1' }],
      'POST /edge-routers/r1/re-enroll': {},
      'GET /edge-routers/r1': { id: 'r1', enrollmentJwt: 'eyJ.new.jwt' },
    });
    const deps = testDeps({ api });
    await runRouterReEnroll({ ref: 'er-1', jwtOutput: '-', yes: true }, deps);
    assert.ok(api.calls.some((c) => c.method === 'POST' && c.path === '/edge-routers/r1/re-enroll'));
    assert.equal(deps.io.stdoutText(), 'eyJ.new.jwt\n');
    assert.match(deps.io.stderrText(), /cannot connect until it enrolls/);
  });

  it('refuses a --jwt-output file in the way before it asks, and a decline leaves no file', async () => {
    const api = fakeApi({
      'GET /edge-routers/er-1': notFound('edge-router', 'er-1'),
      'LIST /edge-routers': [{ id: 'r1', name: 'er-1' }],
    });
    const taken = join(dir, 'taken.jwt');
    writeFileSync(taken, 'kept');
    const asked = testDeps({ api, tty: true, answers: { confirm: [true] } });
    await assert.rejects(runRouterReEnroll({ ref: 'er-1', jwtOutput: taken }, asked), /already exists/);
    assert.deepEqual(asked.prompts, []);
    assert.equal(readFileSync(taken, 'utf8'), 'kept');

    const fresh = join(dir, 'declined.jwt');
    const declined = testDeps({ api, tty: true, answers: { confirm: [false] } });
    await assert.rejects(runRouterReEnroll({ ref: 'er-1', jwtOutput: fresh }, declined), { exitCode: 3 });
    assert.equal(declined.prompts.length, 1);
    assert.throws(() => statSync(fresh), /ENOENT/);
    assert.ok(!api.calls.some((c) => c.method === 'POST'), 'nothing re-enrolled');
  });
});
