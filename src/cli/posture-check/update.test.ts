import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeApi } from '../testing/fake-api.js';
import { capture, parse } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';
import { buildPostureCheckUpdate, runPostureCheckUpdate, type PostureCheckUpdateOptions } from './update.js';

async function options(argv: string[]): Promise<PostureCheckUpdateOptions> {
  const spy = capture<PostureCheckUpdateOptions>();
  await parse(buildPostureCheckUpdate(testDeps(), spy.run), argv);
  return spy.last();
}

const none = { body: {}, refs: [] };

/** A controller holding one check (named by its id here), which takes its PATCH unless `patched` is false. */
function controller(check: Record<string, unknown>, { patched = true } = {}) {
  const path = `/posture-checks/${check.id as string}`;
  return fakeApi({ [`GET ${path}`]: check, ...(patched ? { [`PATCH ${path}`]: {} } : {}) });
}

describe('posture-check update flags', () => {
  it('reads the generic flags and every kind flag; refuses an update with nothing in it', async () => {
    const o = await options(['corp', '--name', 'corp-2', '--domain', 'a.example,b.example', '--add-attributes', 'win']);
    assert.deepEqual(o, {
      ref: 'corp',
      input: { body: { name: 'corp-2' }, refs: [] },
      kindInput: { domains: ['a.example', 'b.example'] },
      addAttributes: ['win'],
      removeAttributes: undefined,
    });
    assert.deepEqual((await options(['t', '--mfa-timeout', '10m', '--no-prompt-on-wake'])).kindInput, {
      timeoutSeconds: 600,
      promptOnWake: false,
    });
    await assert.rejects(options(['corp']), /nothing to update/);
  });
});

describe('posture-check update run', () => {
  it("patches the kind's fields with the kind repeated, as OpenZiti's clients do", async () => {
    const api = controller({
      id: 'd1',
      name: 'corp',
      typeId: 'DOMAIN',
      domains: ['old.example'],
      roleAttributes: ['win'],
    });
    const deps = testDeps({ api });
    await runPostureCheckUpdate(
      { ref: 'd1', input: none, kindInput: { domains: ['new.example'] }, addAttributes: ['lab'] },
      deps,
    );
    const patch = api.calls.find((c) => c.method === 'PATCH')!;
    assert.deepEqual(patch.body, { typeId: 'DOMAIN', domains: ['new.example'], roleAttributes: ['win', 'lab'] });
    assert.equal(deps.io.stderrText(), 'updated posture check "d1"\n');
  });

  it('names a renamed check by its new name', async () => {
    const api = controller({ id: 'd1', name: 'corp', typeId: 'DOMAIN', domains: ['old.example'] });
    const deps = testDeps({ api });
    await runPostureCheckUpdate({ ref: 'd1', input: { body: { name: 'corp-2' }, refs: [] }, kindInput: {} }, deps);
    assert.equal(deps.io.stderrText(), 'updated posture check "corp-2"\n');
  });

  it('merges the flags over the current process of a PROCESS check (the API takes it whole)', async () => {
    const api = controller({
      id: 'p1',
      name: 'av',
      typeId: 'PROCESS',
      process: { osType: 'Windows', path: 'C:\\av.exe', hashes: ['aa'], signerFingerprint: 'bb' },
    });
    await runPostureCheckUpdate({ ref: 'p1', input: none, kindInput: { hashes: ['cc'] } }, testDeps({ api }));
    assert.deepEqual(api.calls.find((c) => c.method === 'PATCH')!.body, {
      typeId: 'PROCESS',
      process: { osType: 'Windows', path: 'C:\\av.exe', hashes: ['cc'], signerFingerprint: 'bb' },
    });
  });

  it('refuses the flags of another kind, naming them, before sending anything', async () => {
    const check = { id: 'm1', name: 'lab', typeId: 'MAC', macAddresses: ['001122334455'] };
    const api = controller(check, { patched: false });
    await assert.rejects(
      runPostureCheckUpdate(
        { ref: 'm1', input: none, kindInput: { domains: ['x'], timeoutSeconds: 5 } },
        testDeps({ api }),
      ),
      /"m1" is a MAC check: --domain, --mfa-timeout do not apply to it/,
    );
    assert.equal(
      api.calls.some((c) => c.method === 'PATCH'),
      false,
    );
  });

  it('sends nothing when the attributes would not change', async () => {
    const api = controller({ id: 'o1', name: 'os', typeId: 'OS', roleAttributes: ['a'] }, { patched: false });
    const deps = testDeps({ api });
    await runPostureCheckUpdate({ ref: 'o1', input: none, kindInput: {}, addAttributes: ['a'] }, deps);
    assert.equal(
      api.calls.some((c) => c.method === 'PATCH'),
      false,
    );
    assert.match(deps.io.stderrText(), /already up to date/);
  });
});
