import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { notFound } from '../../protocol/errors.js';
import { identity } from '../../resources/identity.js';
import { service } from '../../resources/service.js';
import { buildCreate } from './create.js';
import { buildDelete } from './delete.js';
import { buildUpdate } from './update.js';
import { fakeApi } from '../testing/fake-api.js';
import { parse } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';
import { buildAuthPolicyCreate } from '../auth-policy/index.js';
import { buildProgram } from '../main.js';
import { walk } from '../tree.js';

const web = { id: 's1', name: 'web', tags: { team: 'a' } };

describe('--dry-run', () => {
  it("is taken by every create and update, a noun's own as well as the generic ones", async () => {
    const program = await buildProgram(testDeps());
    const writers = [...walk(program)].filter(
      ([path, c]) => c.commands.length === 0 && /(^| )(create|update)( |$)/.test(path),
    );
    assert.ok(writers.length > 30, `${writers.length} create and update commands`);
    const without = writers.filter(([, c]) => !c.options.some((o) => o.long === '--dry-run')).map(([path]) => path);
    assert.deepEqual(without, []);
  });

  it("a noun's own create (auth-policy) prints its POST and sends nothing", async () => {
    const api = fakeApi({});
    const deps = testDeps({ api });
    await parse(buildAuthPolicyCreate(deps), ['strict', '--primary', 'password', '--require-totp', '--dry-run']);
    assert.deepEqual(api.calls, []);
    const [request, ...body] = deps.io.stdoutText().split('\n');
    assert.equal(request, 'POST /edge/management/v1/auth-policies');
    const sent = JSON.parse(body.join('\n'));
    assert.equal(sent.name, 'strict');
    assert.deepEqual(
      [sent.primary.updb.allowed, sent.primary.cert.allowed, sent.secondary.requireTotp],
      [true, false, true],
    );
  });

  it('create: resolves names, prints the POST with its body on stdout, and sends nothing', async () => {
    const api = fakeApi({
      'GET /configs/web-host': notFound('config', 'web-host'),
      'LIST /configs': [{ id: 'c2', name: 'web-host' }],
    });
    const deps = testDeps({ api });
    await parse(buildCreate(deps, service), ['web', '--config', 'web-host', '--tag', 'replicas:=3', '--dry-run']);
    assert.ok(api.calls.every((c) => c.method === 'GET'));
    assert.equal(
      deps.io.stdoutText(),
      `POST /edge/management/v1/services\n${JSON.stringify(
        { encryptionRequired: true, name: 'web', tags: { replicas: 3 }, configs: ['c2'] },
        null,
        2,
      )}\n`,
    );
    assert.equal(deps.io.stderrText(), '', 'no "created" message: nothing was created');
  });

  it('prints one JSON object per request with -o json', async () => {
    const deps = testDeps({ api: fakeApi({}), globals: { output: 'json' } });
    await parse(buildCreate(deps, service), ['web', '--dry-run']);
    assert.deepEqual(JSON.parse(deps.io.stdoutText()), {
      method: 'POST',
      path: '/edge/management/v1/services',
      body: { encryptionRequired: true, name: 'web' },
    });
  });

  it('update: reads the current tags, prints the PATCH of the merged set', async () => {
    const api = fakeApi({ 'GET /services/s1': web });
    const deps = testDeps({ api });
    await parse(buildUpdate(deps, service), ['s1', '--tag', 'env=prod', '--dry-run']);
    assert.equal(
      deps.io.stdoutText(),
      `PATCH /edge/management/v1/services/s1\n${JSON.stringify({ tags: { team: 'a', env: 'prod' } }, null, 2)}\n`,
    );
    assert.ok(api.calls.every((c) => c.method === 'GET'));
  });

  it('delete: prints each DELETE without asking, even with no terminal and no --yes', async () => {
    const api = fakeApi({
      'GET /identities/a1': { id: 'a1', name: 'x' },
      'GET /identities/b2': { id: 'b2', name: 'y' },
    });
    const deps = testDeps({ api, tty: false });
    await parse(buildDelete(deps, identity), ['a1', 'b2', '--dry-run']);
    assert.equal(
      deps.io.stdoutText(),
      'DELETE /edge/management/v1/identities/a1\nDELETE /edge/management/v1/identities/b2\n',
    );
    assert.deepEqual(deps.prompts, []);
    assert.ok(!deps.io.stderrText().includes('deleted'));
  });
});
