// `ctl export` through the built CLI against the real controller: a network of every kind written by name, with
// no ids and no secrets, the same text on a second run, a chosen set of kinds as JSON into a file, and unknown
// kinds refused before any request.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { useCliFixture } from '../helpers/cli-fixture.js';
import { assertStatus } from '../helpers/controller.js';

const f = useCliFixture('export-cli');

async function create(plural: string, body: Record<string, unknown>): Promise<string> {
  const res = await f.admin.post(`/${plural}`, body);
  assertStatus(res, 201, `create ${plural}`);
  return res.body.data.id;
}

describe('ctl export', () => {
  const ids: string[] = [];
  it('writes a network of every kind by name, with no ids and no secrets', async () => {
    const type = await create('config-types', { name: 'web.v1', schema: { type: 'object' } });
    ids.push(type);
    ids.push(await create('configs', { name: 'web-cfg', configTypeId: type, data: { port: 80, host: 'a' } }));
    const web = { name: 'web', encryptionRequired: true, configs: [ids[1]], roleAttributes: ['b', 'a'] };
    ids.push(await create('services', web));
    ids.push(await create('edge-routers', { name: 'er-1', roleAttributes: ['public'] }));
    ids.push(await create('identities', { name: 'laptop', type: 'User', isAdmin: false, roleAttributes: ['sales'] }));
    ids.push(await create('posture-checks', { name: 'mac', typeId: 'MAC', macAddresses: ['aabbccddeeff'] }));
    ids.push(
      await create('service-policies', {
        name: 'dial-web',
        type: 'Dial',
        semantic: 'AnyOf',
        identityRoles: [`@${ids[4]}`, '#sales'],
        serviceRoles: [`@${ids[2]}`],
        postureCheckRoles: [`@${ids[5]}`],
      }),
    );
    const routers = { name: 'all-er', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#public'] };
    ids.push(await create('edge-router-policies', routers));

    const { stdout } = await f.cli.expect(0, ['export']);
    const doc = parse(stdout);
    const types = [{ name: 'web.v1', schema: { type: 'object' }, target: 'service' }];
    assert.deepEqual(doc.configTypes, types, 'built-in config types are not exported');
    assert.deepEqual(doc.configs, [{ name: 'web-cfg', configType: 'web.v1', data: { host: 'a', port: 80 } }]);
    const [service] = doc.services;
    assert.equal(service.name, 'web');
    assert.deepEqual(service.configs, ['web-cfg']);
    assert.deepEqual(service.roleAttributes, ['a', 'b']);
    assert.equal(service.encryptionRequired, true);
    const names = (list: Array<{ name: string }>) => list.map((e) => e.name);
    assert.deepEqual(names(doc.identities), ['laptop'], "the default admin and router identities are the controller's");
    assert.equal(doc.identities[0].type, 'Default', 'the controller stores every non-router type as Default');
    assert.equal(doc.identities[0].authPolicy, 'Default');
    assert.deepEqual(doc.servicePolicies[0].identityRoles, ['#sales', '@laptop']);
    assert.deepEqual(doc.servicePolicies[0].serviceRoles, ['@web']);
    assert.deepEqual(doc.servicePolicies[0].postureCheckRoles, ['@mac']);
    assert.deepEqual(names(doc.edgeRouterPolicies), ['all-er'], 'system router policies are not exported');
    assert.deepEqual(doc.transitRouters, [], "an edge router's router row is the edge router's");
    const firstKeys = ['externalJwtSigners', 'authPolicies', 'certificateAuthorities', 'configTypes', 'configs'];
    assert.deepEqual(Object.keys(doc).slice(0, 5), firstKeys, 'kinds in dependency order');
    for (const id of ids) assert.doesNotMatch(stdout, new RegExp(id), `id ${id} appears in the export`);
    assert.doesNotMatch(stdout, /enrollment|jwt:|password|eyJ/i, 'no enrollment, token or password');
  });

  it('writes the same text when run again', async () => {
    const first = await f.cli.expect(0, ['export']);
    const second = await f.cli.expect(0, ['export']);
    assert.equal(second.stdout, first.stdout);
  });

  it('writes the named kinds only, as JSON into a file', async () => {
    const file = path.join(f.tmp, 'net.json');
    const args = ['export', 'identity', 'service', 'service-policy', '-o', 'json', '--output-file', file];
    const r = await f.cli.expect(0, args);
    assert.equal(r.stdout, '');
    const doc = JSON.parse(await readFile(file, 'utf8'));
    assert.deepEqual(Object.keys(doc), ['services', 'identities', 'servicePolicies']);
    assert.deepEqual(doc.servicePolicies[0].serviceRoles, ['@web']);
  });

  it("starts the YAML with the language server's schema line when asked, and the file still applies", async () => {
    const file = path.join(f.tmp, 'net.yaml');
    await f.cli.expect(0, ['export', '--schema-ref', './network.schema.json', '--output-file', file]);
    const text = await readFile(file, 'utf8');
    assert.equal(text.split('\n')[0], '# yaml-language-server: $schema=./network.schema.json');
    await f.cli.expect(0, ['diff', '-f', file]);
    const json = await f.cli.expect(2, ['export', '--schema-ref', 'x.json', '-o', 'json']);
    assert.match(json.stderr, /--schema-ref goes with a YAML export/);
  });

  it('refuses an unknown kind as a usage error', async () => {
    const r = await f.cli.expect(2, ['export', 'identity', 'gadget']);
    assert.match(r.stderr, /unknown kind 'gadget'/);
    const intoDir = await f.cli.expect(1, ['export', 'service', '--output-file', f.tmp]);
    assert.equal(intoDir.stderr.split('\n')[0], `error: cannot write ${f.tmp}: it is a directory`);
    const typo = await f.cli.expect(2, ['export', 'servce']);
    assert.match(typo.stderr, /^error: unknown kind 'servce'\n {2}did you mean 'service'\?\n {2}kinds: /);
  });
});
