// Posture checks through the built CLI, against the real controller: a create per kind with its readable flags,
// read back through the API in the shapes OpenZiti's clients expect, an update that knows the check's kind, and
// the controller's refusals reported with their exit codes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useCliFixture } from '../helpers/cli-fixture.js';
import { assertStatus } from '../helpers/controller.js';

const f = useCliFixture('posture-check-cli');

const SHA512 = 'Ab'.repeat(64);
const SHA1 = 'cD'.repeat(20);

async function check(id: string): Promise<Record<string, any>> {
  const res = await f.admin.get(`/posture-checks/${id}`);
  assertStatus(res, 200);
  return res.body.data;
}

describe('ctl posture-check', () => {
  it('creates a check of each kind from its flags; the controller stores what clients compare against', async () => {
    const create = async (...argv: string[]) =>
      (await f.cli.expect(0, ['posture-check', 'create', ...argv])).stdout.trim();
    const os = await check(
      await create('os', 'win', '--os', 'windows:10.0.19041,10', '--os', 'Linux', '-a', 'laptops'),
    );
    assert.deepEqual(os.operatingSystems, [
      { type: 'Windows', versions: ['10.0.19041', '10.x'] },
      { type: 'Linux', versions: [] },
    ]);
    assert.deepEqual(os.roleAttributes, ['laptops']);
    assert.deepEqual((await check(await create('mac', 'lab', '--mac', '00:11:22:AA:BB:CC'))).macAddresses, [
      '001122aabbcc',
    ]);
    assert.deepEqual((await check(await create('domain', 'corp', '--domain', 'corp.example.com'))).domains, [
      'corp.example.com',
    ]);
    const av = await check(
      await create('process', 'av', '--os-type', 'Windows', '--path', 'C:\\av.exe', '--hash', SHA512, '--signer', SHA1),
    );
    assert.deepEqual(av.process, {
      osType: 'Windows',
      path: 'C:\\av.exe',
      hashes: [SHA512.toLowerCase()],
      signerFingerprint: SHA1.toLowerCase(),
    });
    const multi = await check(
      await create(
        'process-multi',
        'edr',
        '--process',
        'Linux:/usr/bin/edr',
        '--hash',
        SHA512,
        '--process',
        'macOS:/Applications/EDR',
      ),
    );
    assert.equal(multi.semantic, 'AllOf');
    assert.deepEqual(
      multi.processes.map((p: { hashes: string[] }) => p.hashes.length),
      [1, 0],
    );
    const mfa = await check(await create('mfa', 'mfa-5m', '--mfa-timeout', '5m', '--prompt-on-wake'));
    assert.deepEqual([mfa.timeoutSeconds, mfa.promptOnWake, mfa.promptOnUnlock], [300, true, false]);
  });

  it("updates within the check's kind; another kind's flag is a usage error (exit 2) and changes nothing", async () => {
    const printed = await f.cli.expect(0, ['posture-check', 'update', 'av', '--path', 'C:\\av2.exe', '-o', 'json']);
    const av = await f.admin.get('/posture-checks', { query: { filter: 'name = "av"' } });
    assert.equal(av.body.data[0].process.path, 'C:\\av2.exe');
    assert.equal(JSON.parse(printed.stdout).process.path, 'C:\\av2.exe', '-o json prints the check as changed');
    assert.deepEqual(av.body.data[0].process.hashes, [SHA512.toLowerCase()], 'the rest of the process is kept');
    const refused = await f.cli.expect(2, ['posture-check', 'update', 'corp', '--mac', '001122334455']);
    assert.match(refused.stderr, /"corp" is a DOMAIN check: --mac does not apply to it/);
    await f.cli.expect(0, ['pc', 'update', 'mfa-5m', '--no-prompt-on-wake', '--add-attributes', 'admins']);
    const mfa = (await f.admin.get('/posture-checks', { query: { filter: 'name = "mfa-5m"' } })).body.data[0];
    assert.deepEqual([mfa.promptOnWake, mfa.roleAttributes, mfa.timeoutSeconds], [false, ['admins'], 300]);
  });

  it("reports the controller's refusal (a name in use) with exit 6, and lists the built-in types", async () => {
    const r = await f.cli.expect(6, ['posture-check', 'create', 'domain', 'corp', '--domain', 'other.example.com']);
    assert.match(r.stderr, /name/);
    const types = await f.cli.expect(0, ['posture-check-type', 'list', '-q']);
    assert.deepEqual(types.stdout.trim().split('\n').sort(), ['DOMAIN', 'MAC', 'OS', 'PROCESS', 'PROCESS_MULTI']);
  });
});
