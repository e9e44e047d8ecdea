import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { notFound } from '../../protocol/errors.js';
import { fakeApi } from '../testing/fake-api.js';
import { capture, parse } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';
import { buildTerminatorCreate, runTerminatorCreate, type TerminatorCreateOptions } from './create.js';

const dir = mkdtempSync(join(tmpdir(), 'ctl-terminator-create-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('terminator create', () => {
  it('takes service and router as references, other fields as flags, and no secret on the command line', async () => {
    const spy = capture<TerminatorCreateOptions>();
    const argv = [
      '--service',
      'web',
      '--router',
      'er-1',
      '--binding',
      'edge',
      '--address',
      'hosted:x',
      '--precedence',
      'failed',
      '--cost',
      '3',
      '--identity-secret-file',
      's.bin',
    ];
    await parse(buildTerminatorCreate(testDeps(), spy.run), argv);
    assert.deepEqual(spy.last(), {
      input: {
        body: { binding: 'edge', address: 'hosted:x', precedence: 'failed', cost: 3 },
        refs: [
          { field: 'service', resource: 'service', value: 'web' },
          { field: 'router', resource: 'transit-router', value: 'er-1' },
        ],
      },
      identitySecretFile: 's.bin',
    });
    await assert.rejects(
      parse(buildTerminatorCreate(testDeps(), spy.run), ['--identity-secret', 'abc']),
      /unknown option '--identity-secret'/,
    );
  });

  it('resolves names to ids and sends the secret file base64-encoded', async () => {
    const secret = join(dir, 'secret.bin');
    writeFileSync(secret, Buffer.from([0, 1, 2, 255]));
    const api = fakeApi({
      'GET /services/web': notFound('service', 'web'),
      'LIST /services': [{ id: 's1', name: 'web' }],
      'GET /transit-routers/er-1': notFound('router', 'er-1'),
      'LIST /transit-routers': [{ id: 'r1', name: 'er-1' }],
      'POST /terminators': { id: 't1', _links: {} },
    });
    const deps = testDeps({ api });
    const refs = [
      { field: 'service', resource: 'service', value: 'web' },
      { field: 'router', resource: 'transit-router', value: 'er-1' },
    ];
    await runTerminatorCreate(
      { input: { body: { binding: 'edge', address: 'hosted:x' }, refs }, identitySecretFile: secret },
      deps,
    );
    const post = api.calls.find((c) => c.method === 'POST')!;
    assert.deepEqual(post.body, {
      identitySecret: 'AAEC/w==',
      binding: 'edge',
      address: 'hosted:x',
      service: 's1',
      router: 'r1',
    });
    assert.equal(deps.io.stdoutText(), 't1\n');
  });

  it('an unreadable secret file is a usage error, before any request', async () => {
    const api = fakeApi({});
    await assert.rejects(
      runTerminatorCreate(
        { input: { body: {}, refs: [] }, identitySecretFile: join(dir, 'missing') },
        testDeps({ api }),
      ),
      /^UsageError: cannot read .*missing: no such file or directory$/,
    );
    assert.equal(api.calls.length, 0);
  });
});
