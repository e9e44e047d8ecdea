import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ApiError } from '../../protocol/errors.js';
import { fakeApi } from '../testing/fake-api.js';
import { capture, parse } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';
import { buildIdentityCreate, runIdentityCreate } from './create.js';
import type { IdentityCreateOptions } from './create.js';

async function options(argv: string[]): Promise<IdentityCreateOptions> {
  const spy = capture<IdentityCreateOptions>();
  await parse(buildIdentityCreate(testDeps(), spy.run), argv);
  return spy.last();
}

const dir = mkdtempSync(join(tmpdir(), 'ctl-identity-create-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const CREATED = { 'POST /identities': { id: 'n1', _links: {} } };

/** A controller that creates n1, and serves it with `enrollment` to a command that fetches its JWT. */
function controller(enrollment: Record<string, unknown>) {
  return fakeApi({ ...CREATED, 'GET /identities/n1': { id: 'n1', name: 'laptop-7', enrollment } });
}

describe('identity create flags', () => {
  it('reads the name, attributes, admin, external id, auth policy, updb, jwt output and tags', async () => {
    const o = await options([
      'laptop-7',
      '-a',
      'sales,emea',
      '--admin',
      '--external-id',
      'X1',
      '--auth-policy',
      'strict',
      '--updb',
      'alice',
      '--jwt-output',
      '-',
      '--tags',
      'k=v',
    ]);
    assert.deepEqual(o, {
      name: 'laptop-7',
      input: {
        body: { roleAttributes: ['sales', 'emea'], isAdmin: true, externalId: 'X1', tags: { k: 'v' } },
        refs: [{ field: 'authPolicyId', resource: 'auth-policy', value: 'strict' }],
      },
      updb: 'alice',
      jwtOutput: '-',
    });
    assert.equal((await options(['x', '--jwt-output', 'f', '--force'])).force, true);
  });

  it('has no --type: the controller would store Service or Router as Default', async () => {
    await assert.rejects(options(['x', '--type', 'Service']), /unknown option '--type'/);
  });

  it('takes the enrollment from --updb, not as JSON', async () => {
    await assert.rejects(options(['x', '--enrollment', '{}']), /unknown option '--enrollment'/);
  });
});

describe('identity create run', () => {
  it('creates a Default, non-admin identity with a one-time token and prints its id', async () => {
    const api = fakeApi(CREATED);
    const deps = testDeps({ api });
    await runIdentityCreate({ name: 'laptop-7', input: { body: {}, refs: [] } }, deps);
    assert.deepEqual(api.calls[0].body, {
      isAdmin: false,
      type: 'Default',
      name: 'laptop-7',
      enrollment: { ott: true },
    });
    assert.equal(deps.io.stdoutText(), 'n1\n');
    assert.equal(deps.io.stderrText(), 'created identity "laptop-7" with id n1\n');
  });

  it('lets the flags win over the defaults', async () => {
    const api = fakeApi(CREATED);
    await runIdentityCreate(
      { name: 'bot', input: { body: { type: 'Service', isAdmin: true }, refs: [] }, updb: 'bot-user' },
      testDeps({ api }),
    );
    assert.deepEqual(api.calls[0].body, {
      isAdmin: true,
      type: 'Service',
      name: 'bot',
      enrollment: { updb: 'bot-user' },
    });
  });

  it('writes the JWT to a file readable by the owner only, even over an existing file with --force', async () => {
    const file = join(dir, 'laptop-7.jwt');
    writeFileSync(file, 'old', { mode: 0o644 });
    const deps = testDeps({ api: controller({ ott: { jwt: 'eyJ.ott.jwt' } }) });
    await runIdentityCreate({ name: 'laptop-7', input: { body: {}, refs: [] }, jwtOutput: file, force: true }, deps);
    assert.equal(readFileSync(file, 'utf8'), 'eyJ.ott.jwt\n');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(deps.io.stdoutText(), 'n1\n');
    assert.match(deps.io.stderrText(), /wrote the enrollment JWT to .*laptop-7\.jwt/);
  });

  it('checks the output path before asking the controller: a missing directory or existing file stops it', async () => {
    const existing = join(dir, 'exists.jwt');
    writeFileSync(existing, 'keep');
    for (const [jwtOutput, pattern, exitCode] of [
      [join(dir, 'no', 'such', 'dir', 'x.jwt'), /cannot write .*x\.jwt/, 1],
      [existing, /exists\.jwt already exists/, 2],
    ] as const) {
      const api = fakeApi({});
      await assert.rejects(
        runIdentityCreate({ name: 'x', input: { body: {}, refs: [] }, jwtOutput }, testDeps({ api })),
        (err: Error & { exitCode: number }) => {
          assert.match(err.message, pattern);
          assert.equal(err.exitCode, exitCode);
          return true;
        },
      );
      assert.deepEqual(api.calls, [], 'nothing sent to the controller');
    }
    assert.equal(readFileSync(existing, 'utf8'), 'keep');
  });

  it('frees the reserved path when the controller refuses, so that a retry can use it', async () => {
    const file = join(dir, 'refused.jwt');
    const api = fakeApi({ 'POST /identities': new ApiError('COULD_NOT_VALIDATE') });
    const create = runIdentityCreate({ name: 'x', input: { body: {}, refs: [] }, jwtOutput: file }, testDeps({ api }));
    await assert.rejects(create, (err: unknown) => err instanceof ApiError && err.code === 'COULD_NOT_VALIDATE');
    assert.throws(() => statSync(file), /ENOENT/);
  });

  it('prints only the JWT on stdout with --jwt-output -, the id going to stderr', async () => {
    const deps = testDeps({ api: controller({ updb: { jwt: 'eyJ.updb.jwt' } }) });
    await runIdentityCreate({ name: 'laptop-7', input: { body: {}, refs: [] }, updb: 'alice', jwtOutput: '-' }, deps);
    assert.equal(deps.io.stdoutText(), 'eyJ.updb.jwt\n');
    assert.equal(deps.io.stderrText(), 'created identity "laptop-7" with id n1\n');
  });

  it('fails (exit 1) when the controller returns no JWT, naming the identity created', async () => {
    const deps = testDeps({ api: controller({}) });
    await assert.rejects(
      runIdentityCreate({ name: 'laptop-7', input: { body: {}, refs: [] }, jwtOutput: '-' }, deps),
      (err: Error & { exitCode: number }) => {
        assert.equal(err.exitCode, 1);
        assert.match(
          err.message,
          /created identity "laptop-7" \(n1\), but the controller returned no ott enrollment JWT/,
        );
        return true;
      },
    );
  });
});
