// `ctl apply --replace` and `ctl diff --replace` through the built CLI against a real controller: a service whose
// file changes encryptionRequired (fixed after create) is deleted and created again; a policy in the file that names
// it is written with the new id, and policies outside the file (of a kind the file declares, and of one it does not)
// that held its old @id are re-pointed. The plan shows it (text and JSON), --dry-run and a script without --yes
// write nothing, a reference that refuses the delete is a conflict naming what holds it, and replaced entities that
// hold one another are deleted in an order the controller accepts.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { useCliFixture } from '../helpers/cli-fixture.js';
import { assertStatus } from '../helpers/controller.js';

const f = useCliFixture('apply-replace');

async function create(plural: string, body: Record<string, unknown>): Promise<string> {
  const res = await f.admin.post(`/${plural}`, body);
  assertStatus(res, 201, `create ${plural}`);
  return res.body.data.id;
}

async function named(plural: string, name: string): Promise<Record<string, unknown> & { id: string }> {
  const res = await f.admin.get(`/${plural}`, { query: { filter: `name = "${name}"` } });
  assertStatus(res, 200);
  assert.equal(res.body.data.length, 1, `one ${plural} "${name}"`);
  return res.body.data[0];
}

const sorted = (list: unknown) => [...(list as string[])].sort();

describe('ctl apply --replace', () => {
  let file: string;
  let oldId: string;
  let cfg: string;

  it('sets up a service held by policies in the file and outside it', async () => {
    const type = await create('config-types', { name: 'web.v1', schema: { type: 'object' } });
    cfg = await create('configs', { name: 'web-cfg', configTypeId: type, data: { port: 80 } });
    oldId = await create('services', { name: 'web', encryptionRequired: true, roleAttributes: ['a'], configs: [cfg] });
    const laptop = await create('identities', { name: 'laptop', type: 'User', isAdmin: false });
    const dial = { type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${laptop}`], serviceRoles: [`@${oldId}`] };
    await create('service-policies', { name: 'dial-web', ...dial });
    const bind = { type: 'Bind', semantic: 'AnyOf', identityRoles: ['#all'], serviceRoles: [`@${oldId}`, '#a'] };
    await create('service-policies', { name: 'outside-bind', ...bind });
    const routers = { semantic: 'AnyOf', serviceRoles: [`@${oldId}`], edgeRouterRoles: ['#all'] };
    await create('service-edge-router-policies', { name: 'web-er', ...routers });
    file = path.join(f.tmp, 'net.yaml');
    const policy = { name: 'dial-web', type: 'Dial', semantic: 'AnyOf', identityRoles: ['@laptop'] };
    await writeFile(
      file,
      stringify({
        services: [{ name: 'web', encryptionRequired: false }],
        servicePolicies: [{ ...policy, serviceRoles: ['@web', '#b'] }],
      }),
    );
  });

  it('without --replace reports the conflict and names the flag', async () => {
    const r = await f.cli.expect(6, ['apply', '-f', file]);
    assert.match(r.stderr, /^! conflict service "web": encryptionRequired true → false/m);
    assert.match(r.stderr, /apply with --replace/);
    assert.equal((await named('services', 'web')).id, oldId);
  });

  it('plans the replace and the repoints with diff --replace, as text and as JSON', async () => {
    const r = await f.cli.expect(2, ['diff', '-f', file, '--replace']);
    const lines = r.stdout.trim().split('\n');
    assert.deepEqual(lines, [
      '-/+ replace service "web": encryptionRequired true → false (encryptionRequired cannot change after create)',
      '~ re-point service policy "outside-bind": serviceRoles to the new "web"',
      '~ re-point service edge router policy "web-er": serviceRoles to the new "web"',
      '~ update service policy "dial-web": serviceRoles ["@web"] → ["#b","@web"]',
      'Plan: 0 to create, 1 to update, 0 to delete, 0 conflicts, 1 to replace, 2 to re-point.',
    ]);
    const plan = JSON.parse((await f.cli.expect(2, ['diff', '-f', file, '--replace', '-o', 'json'])).stdout);
    assert.deepEqual(plan.summary, { create: 0, update: 1, delete: 0, conflict: 0, replace: 1, repoint: 2 });
    assert.deepEqual(plan.changes[0], {
      action: 'replace',
      kind: 'service',
      name: 'web',
      fields: { encryptionRequired: { from: true, to: false } },
      reason: 'encryptionRequired cannot change after create',
    });
    assert.deepEqual(plan.changes[1], {
      action: 'repoint',
      kind: 'service-policy',
      name: 'outside-bind',
      repoint: { serviceRoles: ['web'] },
    });
  });

  it('writes nothing with --dry-run, nor in a script without --yes', async () => {
    const dry = await f.cli.expect(0, ['apply', '-f', file, '--replace', '--dry-run']);
    assert.match(dry.stderr, /^-\/\+ replace service "web"/m);
    const refused = await f.cli.expect(3, ['apply', '-f', file, '--replace']);
    const declined = /not deleting 1 entity \(1 to create again\) without confirmation: nothing was written/;
    assert.match(refused.stderr, declined);
    assert.match(refused.stderr, /--yes/);
    const web = await named('services', 'web');
    assert.deepEqual([web.id, web.encryptionRequired], [oldId, true]);
  });

  it('replaces the service, keeps what the file leaves out, and points every policy at the new id', async () => {
    const r = await f.cli.expect(0, ['apply', '-f', file, '--replace', '--yes']);
    assert.match(r.stderr, /^Applied: 0 created, 1 updated, 0 deleted, 1 replaced, 2 re-pointed\.$/m);
    const web = await named('services', 'web');
    assert.notEqual(web.id, oldId);
    assert.equal(web.encryptionRequired, false);
    assert.deepEqual([web.roleAttributes, web.configs], [['a'], [cfg]], 'fields the file leaves out are kept');
    const roles = async (plural: string, name: string) => sorted((await named(plural, name)).serviceRoles);
    assert.deepEqual(await roles('service-policies', 'dial-web'), ['#b', `@${web.id}`]);
    assert.deepEqual(await roles('service-policies', 'outside-bind'), ['#a', `@${web.id}`]);
    assert.deepEqual(await roles('service-edge-router-policies', 'web-er'), [`@${web.id}`]);
    await f.cli.expect(0, ['diff', '-f', file]);
  });

  it('refuses a replace that a reference refusing the delete holds, naming it, and writes nothing', async () => {
    const held = path.join(f.tmp, 'held.yaml');
    const type = { name: 'web.v1', schema: { type: 'object' }, target: 'router' };
    await writeFile(held, stringify({ configTypes: [type] }));
    const r = await f.cli.expect(6, ['apply', '-f', held, '--replace', '--yes']);
    const line =
      '! conflict config type "web.v1": target "service" → "router" (target cannot change after create; ' +
      'held by config "web-cfg" (configType), which refuses its delete)';
    assert.ok(r.stderr.split('\n').includes(line), r.stderr);
    assert.match(r.stderr, /1 conflict: nothing was written/);
    assert.match(r.stderr, /change it not to name the entity, or delete it/);
    assert.equal((await named('config-types', 'web.v1')).target, 'service');
  });

  it('replaces what holds a replaced entity first, and re-points what holds it by a clearing reference', async () => {
    const both = path.join(f.tmp, 'both.yaml');
    const types = [
      { name: 'web.v1', schema: { type: 'object' }, target: 'router' },
      { name: 'web.v2', schema: { type: 'object' } },
    ];
    const configs = [{ name: 'web-cfg', configType: 'web.v2', data: { port: 443 } }];
    await writeFile(both, stringify({ configTypes: types, configs }));
    const plan = await f.cli.expect(2, ['diff', '-f', both, '--replace']);
    assert.match(plan.stdout, /^-\/\+ replace config "web-cfg": configType "web.v1" → "web.v2", data/m);
    assert.match(plan.stdout, /^~ re-point service "web": configs to the new "web-cfg"$/m);
    await f.cli.expect(0, ['apply', '-f', both, '--replace', '--yes']);
    const config = await named('configs', 'web-cfg');
    assert.notEqual(config.id, cfg);
    assert.equal((await named('config-types', 'web.v1')).target, 'router');
    assert.deepEqual((await named('services', 'web')).configs, [config.id]);
    await f.cli.expect(0, ['diff', '-f', both]);
  });

  it('puts the old entity back, and what held it, when the controller refuses the new one', async () => {
    const type = await create('config-types', { name: 'strict.v1', schema: { type: 'object' } });
    for (const name of ['strict-a', 'strict-b']) await create('configs', { name, configTypeId: type, data: {} });
    const api = await create('services', { name: 'api', encryptionRequired: true, roleAttributes: ['x'] });
    const bind = { type: 'Bind', semantic: 'AnyOf', identityRoles: ['#all'], serviceRoles: [`@${api}`] };
    await create('service-policies', { name: 'outside-api', ...bind });
    // Two configs of one type on a service: the controller refuses the create, after the old service was deleted.
    const p = path.join(f.tmp, 'refused.yaml');
    const service = { name: 'api', encryptionRequired: false, configs: ['strict-a', 'strict-b'] };
    await writeFile(p, stringify({ services: [service] }));
    const r = await f.cli.expect(6, ['apply', '-f', p, '--replace', '--yes']);
    assert.match(r.stderr, /^failed: replace service "api": /m);
    assert.match(r.stderr, /^restored: service "api" as it was, with a new id, and what held it$/m);
    assert.match(r.stderr, /^Applied: 0 created, 0 updated, 0 deleted, 0 replaced, 1 re-pointed\.$/m);
    const restored = await named('services', 'api');
    assert.notEqual(restored.id, api);
    assert.deepEqual([restored.encryptionRequired, restored.roleAttributes], [true, ['x']]);
    assert.deepEqual((await named('service-policies', 'outside-api')).serviceRoles, [`@${restored.id}`]);
    await writeFile(p, stringify({ services: [{ ...service, configs: ['strict-a'] }] }));
    const again = await f.cli.expect(0, ['apply', '-f', p, '--replace', '--yes']);
    assert.match(again.stderr, /^~ re-point service policy "outside-api": serviceRoles to the new "api"$/m);
    const replaced = await named('services', 'api');
    assert.equal(replaced.encryptionRequired, false);
    assert.deepEqual((await named('service-policies', 'outside-api')).serviceRoles, [`@${replaced.id}`]);
  });

  it('lists what a run that stops after deleting leaves undone: what to create again, what to re-point', async () => {
    const type = await create('config-types', { name: 'odd.v1', schema: { type: 'object' } });
    const cfg = await create('configs', { name: 'odd-cfg', configTypeId: type, data: {} });
    await create('services', { name: 'odd', encryptionRequired: true, configs: [cfg] });
    // The config goes before its type; the type's new schema is refused, so the config's turn never comes.
    const types = [
      { name: 'odd.v1', schema: { type: 'no-such-type' }, target: 'router' },
      { name: 'odd.v2', schema: { type: 'object' } },
    ];
    const p = path.join(f.tmp, 'stops.yaml');
    const configs = [{ name: 'odd-cfg', configType: 'odd.v2', data: {} }];
    await writeFile(p, stringify({ configTypes: types, configs }));
    const r = await f.cli.expect(6, ['apply', '-f', p, '--replace', '--yes']);
    assert.match(r.stderr, /^failed: replace config type "odd.v1": /m);
    assert.match(r.stderr, /^restored: config type "odd.v1" as it was/m);
    assert.match(r.stderr, /^deleted, not created again: config "odd-cfg" \(apply the file again\)$/m);
    const repoint = 'not re-pointed: service "odd": configs must name config "odd-cfg" again';
    assert.ok(
      r.stderr.split('\n').some((l) => l.startsWith(repoint)),
      r.stderr,
    );
    types[0].schema = { type: 'object' };
    await writeFile(p, stringify({ configTypes: types, configs }));
    const again = await f.cli.expect(0, ['apply', '-f', p, '--replace', '--yes']);
    assert.match(again.stderr, /^\+ create config "odd-cfg"$/m);
    assert.deepEqual((await named('services', 'odd')).configs, [], 'what was not re-pointed stays so');
  });
});
