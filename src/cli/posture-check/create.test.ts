import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeApi } from '../testing/fake-api.js';
import { capture, parse } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';
import { buildPostureCheckCreate, runPostureCheckCreate, type PostureCheckCreateOptions } from './create.js';

async function options(argv: string[]): Promise<PostureCheckCreateOptions> {
  const spy = capture<PostureCheckCreateOptions>();
  const command = buildPostureCheckCreate(testDeps(), spy.run);
  // Usage errors of the kind subcommands must throw here too, not end the test process.
  for (const sub of command.commands) sub.exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  await parse(command, argv);
  return spy.last();
}

const SHA512 = 'AB'.repeat(64);
const SHA1 = 'CD'.repeat(20);

describe('posture-check create flags', () => {
  it('os: each --os an OS and its versions; short versions mean every version that starts so', async () => {
    const o = await options([
      'os',
      'win-10',
      '--os',
      'Windows:10.0.19041,10.0.22000',
      '--os',
      'macOS:13',
      '--os',
      'linux',
      '-a',
      'laptops',
    ]);
    assert.deepEqual(o, {
      kind: 'OS',
      name: 'win-10',
      input: { body: { roleAttributes: ['laptops'] }, refs: [] },
      kindInput: {
        operatingSystems: [
          { type: 'Windows', versions: ['10.0.19041', '10.0.22000'] },
          { type: 'macOS', versions: ['13.x'] },
          { type: 'Linux', versions: [] },
        ],
      },
    });
    const merged = await options(['os', 'x', '--os', 'Windows:10.0.19041', '--os', 'windows:>=10.0.22000']);
    assert.deepEqual(merged.kindInput.operatingSystems, [
      { type: 'Windows', versions: ['10.0.19041', '>=10.0.22000'] },
    ]);
  });

  it('os: refuses an unknown OS or a version the controller could not evaluate, and a check with no --os', async () => {
    await assert.rejects(options(['os', 'x', '--os', 'BeOS:5']), /unknown OS 'BeOS'/);
    await assert.rejects(options(['os', 'x', '--os', 'Windows:Vista']), /'Vista' is not a version range/);
    await assert.rejects(options(['os', 'x']), /needs what it checks/);
  });

  it('domain and mac: repeated or comma-separated; MAC addresses in the form clients report them', async () => {
    assert.deepEqual(
      (
        await options([
          'domain',
          'corp',
          '--domain',
          'corp.example.com,lab.example.com',
          '--domain',
          'corp.example.com',
        ])
      ).kindInput,
      {
        domains: ['corp.example.com', 'lab.example.com'],
      },
    );
    assert.deepEqual(
      (await options(['mac', 'lab', '--mac', '00:11:22:33:44:55', '--mac', '66-77-88-99-AA-BB,001122334455']))
        .kindInput,
      {
        macAddresses: ['001122334455', '66778899aabb'],
      },
    );
    await assert.rejects(options(['mac', 'lab', '--mac', '00:11:22']), /not a MAC address/);
    await assert.rejects(options(['domain', 'corp']), /needs what it checks/);
  });

  it('process: OS, path, hashes and signer, checked and in lower case', async () => {
    const o = await options([
      'process',
      'av',
      '--os-type',
      'Windows',
      '--path',
      'C:\\av.exe',
      '--hash',
      SHA512,
      '--signer',
      SHA1,
    ]);
    assert.deepEqual(o.kindInput, {
      osType: 'Windows',
      path: 'C:\\av.exe',
      hashes: [SHA512.toLowerCase()],
      signerFingerprint: SHA1.toLowerCase(),
    });
    await assert.rejects(
      options(['process', 'av', '--os-type', 'Linux', '--path', '/a', '--hash', 'abc']),
      /not a SHA-512 hash/,
    );
    await assert.rejects(
      options(['process', 'av', '--os-type', 'Linux', '--path', '/a', '--signer', 'abc']),
      /not a SHA-1 fingerprint/,
    );
    await assert.rejects(options(['process', 'av', '--path', '/a']), /needs what it checks/);
  });

  it('process-multi: --hash and --signer belong to the --process before them', async () => {
    const o = await options([
      'process-multi',
      'av',
      '--semantic',
      'AnyOf',
      '--process',
      'Windows:C:\\a.exe',
      '--hash',
      SHA512,
      '--process',
      'Linux:/usr/bin/av',
      '--signer',
      SHA1,
    ]);
    assert.deepEqual(o.kindInput, {
      semantic: 'AnyOf',
      processes: [
        { osType: 'Windows', path: 'C:\\a.exe', hashes: [SHA512.toLowerCase()], signerFingerprints: [] },
        { osType: 'Linux', path: '/usr/bin/av', hashes: [], signerFingerprints: [SHA1.toLowerCase()] },
      ],
    });
    await assert.rejects(options(['process-multi', 'av', '--process', 'C:\\a.exe']), /unknown OS|expected OS:PATH/);
    await assert.rejects(
      options(['process-multi', 'av', '--semantic', 'Most', '--process', 'Linux:/a']),
      /Allowed choices are AllOf, AnyOf/,
    );
  });

  it('mfa: a timeout in seconds or as a duration, and the prompts', async () => {
    assert.deepEqual((await options(['mfa', 'timeout', '--mfa-timeout', '300', '--prompt-on-wake'])).kindInput, {
      timeoutSeconds: 300,
      promptOnWake: true,
    });
    assert.deepEqual(
      (await options(['mfa', 't', '--mfa-timeout', '1h', '--no-prompt-on-unlock', '--ignore-legacy-endpoints']))
        .kindInput,
      {
        timeoutSeconds: 3600,
        promptOnUnlock: false,
        ignoreLegacyEndpoints: true,
      },
    );
    assert.deepEqual((await options(['mfa', 't', '--mfa-timeout', 'none'])).kindInput, { timeoutSeconds: -1 });
    assert.deepEqual((await options(['mfa', 't'])).kindInput, {}, 'an MFA check needs no option');
    await assert.rejects(options(['mfa', 't', '--mfa-timeout', 'soon']), /expected seconds/);
  });

  it("takes only its own kind's flags", async () => {
    await assert.rejects(
      options(['domain', 'corp', '--domain', 'a', '--mac', '001122334455']),
      /unknown option '--mac'/,
    );
    await assert.rejects(options(['nfc', 'x']), /unknown command|too many arguments/);
  });
});

describe('posture-check create run', () => {
  it('posts the kind, the name and its fields, and prints the id', async () => {
    const api = fakeApi({ 'POST /posture-checks': { id: 'pc1', _links: {} } });
    const deps = testDeps({ api });
    await runPostureCheckCreate(
      {
        kind: 'DOMAIN',
        name: 'corp',
        input: { body: { roleAttributes: ['win'] }, refs: [] },
        kindInput: { domains: ['corp.example.com'] },
      },
      deps,
    );
    assert.deepEqual(api.calls[0].body, {
      name: 'corp',
      typeId: 'DOMAIN',
      domains: ['corp.example.com'],
      roleAttributes: ['win'],
    });
    assert.equal(deps.io.stdoutText(), 'pc1\n');
    assert.equal(deps.io.stderrText(), 'created posture check "corp" with id pc1\n');
  });

  it('sends a whole process, and AllOf when a multi-process check names no semantic', async () => {
    const api = fakeApi({ 'POST /posture-checks': { id: 'pc2', _links: {} } });
    await runPostureCheckCreate(
      {
        kind: 'PROCESS',
        name: 'av',
        input: { body: {}, refs: [] },
        kindInput: { osType: 'Linux', path: '/usr/bin/av' },
      },
      testDeps({ api }),
    );
    assert.deepEqual(api.calls[0].body, {
      name: 'av',
      typeId: 'PROCESS',
      process: { osType: 'Linux', path: '/usr/bin/av' },
    });
    const processes = [{ osType: 'Linux' as const, path: '/a', hashes: [], signerFingerprints: [] }];
    await runPostureCheckCreate(
      { kind: 'PROCESS_MULTI', name: 'm', input: { body: {}, refs: [] }, kindInput: { processes } },
      testDeps({ api }),
    );
    assert.deepEqual(api.calls[1].body, { name: 'm', typeId: 'PROCESS_MULTI', semantic: 'AllOf', processes });
  });
});
