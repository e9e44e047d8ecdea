// `ctl diff` and `ctl apply` through the built CLI against two real controllers: a network built on the first is
// exported and applied to the second (a signer and the auth policy it enrolls with, which names it, included),
// which then exports the same text; a second apply changes nothing; an edit is planned and applied field by field;
// a file in a directory is merged; bad input and conflicts are refused before anything is written; --dry-run writes
// nothing; --prune deletes a signer and its enrollment auth policy, and refuses to delete what a kept entity holds.
import assert from 'node:assert/strict';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { useCliFixture } from '../helpers/cli-fixture.js';
import { assertStatus } from '../helpers/controller.js';
import { DEFAULT_UPDB_RULES } from '../../src/resources/auth-policy.js';

const source = useCliFixture('apply-source');
const target = useCliFixture('apply-target');

async function create(plural: string, body: Record<string, unknown>): Promise<string> {
  const res = await source.admin.post(`/${plural}`, body);
  assertStatus(res, 201, `create ${plural}`);
  return res.body.data.id;
}

async function exported(f: typeof source): Promise<string> {
  return (await f.cli.expect(0, ['export'])).stdout;
}

async function services(): Promise<string[]> {
  const res = await target.admin.get('/services');
  assertStatus(res, 200);
  return res.body.data.map((s: { name: string }) => s.name).sort();
}

describe('ctl diff and ctl apply', () => {
  let file: string;
  let first: string;

  it('plans the creates of an exported network against an empty controller, and exits 2', async () => {
    const type = await create('config-types', { name: 'web.v1', schema: { type: 'object' } });
    const cfg = await create('configs', { name: 'web-cfg', configTypeId: type, data: { port: 80 } });
    const web = await create('services', {
      name: 'web',
      encryptionRequired: true,
      configs: [cfg],
      roleAttributes: ['a'],
    });
    await create('edge-routers', { name: 'er-1', roleAttributes: ['public'] });
    const user = { name: 'laptop', type: 'User', isAdmin: false, roleAttributes: ['sales'] };
    const laptop = await create('identities', user);
    const mac = await create('posture-checks', { name: 'mac', typeId: 'MAC', macAddresses: ['aabbccddeeff'] });
    const dial = { name: 'dial-web', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${laptop}`, '#sales'] };
    await create('service-policies', { ...dial, serviceRoles: [`@${web}`], postureCheckRoles: [`@${mac}`] });
    const routers = { name: 'all-er', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#public'] };
    await create('edge-router-policies', routers);
    const serviceRouters = { name: 'web-er', semantic: 'AllOf', serviceRoles: ['#a'], edgeRouterRoles: ['#all'] };
    await create('service-edge-router-policies', serviceRouters);
    const signer = await create('external-jwt-signers', {
      name: 'idp',
      enabled: true,
      issuer: 'https://idp.example.com',
      audience: 'ziti',
      jwksEndpoint: 'https://idp.example.com/jwks',
    });
    const primary = {
      cert: { allowed: true, allowExpiredCerts: false },
      updb: { ...DEFAULT_UPDB_RULES, allowed: false },
      extJwt: { allowed: true, allowedSigners: [signer] },
    };
    const secondary = { requireTotp: false, requireExtJwtSigner: signer };
    const corpId = await create('auth-policies', { name: 'corp', primary, secondary });
    // The signer enrolls identities with the policy that names it: a cycle, which apply must break.
    const enrolling = { enrollAuthPolicyId: corpId, enrollToTokenEnabled: true };
    assertStatus(await source.admin.patch(`/external-jwt-signers/${signer}`, enrolling), 200);
    first = await exported(source);
    const corp = parse(first).authPolicies[0];
    assert.deepEqual([corp.primary.extJwt.allowedSigners, corp.secondary.requireExtJwtSigner], [['idp'], 'idp']);
    assert.equal(parse(first).externalJwtSigners[0].enrollAuthPolicy, 'corp', 'by name, as other references');
    file = path.join(target.tmp, 'net.yaml');
    await writeFile(file, first);

    // The plan is diff's result: on stdout, where a pipe or a file gets it.
    const r = await target.cli.expect(2, ['diff', '-f', file]);
    assert.doesNotMatch(r.stderr, /create|Plan/);
    assert.match(r.stdout, /^\+ create config type "web.v1"$/m);
    assert.match(r.stdout, /^\+ create service policy "dial-web"$/m);
    const deferred = 'enrollAuthPolicy, enrollToTokenEnabled by an update after auth policy "corp" is written';
    assert.ok(r.stdout.split('\n').includes(`+ create external JWT signer "idp" (${deferred})`), r.stdout);
    const update =
      '~ update external JWT signer "idp": enrollAuthPolicy (unset) → "corp", enrollToTokenEnabled (unset) → true ' +
      '(after auth policy "corp" is written)';
    const lines = r.stdout.split('\n');
    assert.ok(lines.indexOf(update) > lines.indexOf('+ create auth policy "corp"'), r.stdout);
    assert.match(r.stdout, /^Plan: 11 to create, 1 to update, 0 to delete, 0 conflicts\.$/m);
  });

  it('writes nothing with --dry-run', async () => {
    const r = await target.cli.expect(0, ['apply', '-f', file, '--dry-run']);
    assert.match(r.stderr, /Plan: 11 to create, 1 to update/);
    assert.deepEqual(await services(), []);
  });

  it('applies the export to a fresh controller, which then exports the same text', async () => {
    const r = await target.cli.expect(0, ['apply', '-f', file]);
    assert.match(r.stderr, /^Applied: 11 created, 1 updated, 0 deleted\.$/m);
    assert.equal(await exported(target), first);
  });

  it('changes nothing on a second apply, and diff exits 0 on both controllers', async () => {
    const again = await target.cli.expect(0, ['apply', '-f', file]);
    assert.match(again.stderr, /^No changes: the controller matches the file\.$/m);
    assert.doesNotMatch(again.stderr, /Applied/);
    await target.cli.expect(0, ['diff', '-f', file]);
    await source.cli.expect(0, ['diff', '-f', file]);
  });

  it('updates only the fields that differ, leaves fields the file leaves out alone, plans as JSON', async () => {
    const doc = parse(first);
    doc.services[0].roleAttributes = ['b', 'a'];
    delete doc.services[0].encryptionRequired;
    doc.identities[0].roleAttributes = ['sales', 'eu'];
    await writeFile(file, stringify(doc));
    const plan = JSON.parse((await target.cli.expect(2, ['diff', '-f', file, '-o', 'json'])).stdout);
    assert.deepEqual(plan.summary, { create: 0, update: 2, delete: 0, conflict: 0, replace: 0, repoint: 0 });
    assert.deepEqual(plan.changes[0], {
      action: 'update',
      kind: 'service',
      name: 'web',
      fields: { roleAttributes: { from: ['a'], to: ['a', 'b'] } },
    });
    const r = await target.cli.expect(0, ['apply', '-f', file]);
    assert.match(r.stderr, /^~ update identity "laptop": roleAttributes \["sales"\] → \["eu","sales"\]$/m);
    const web = (await target.admin.get('/services', { query: { filter: 'name = "web"' } })).body.data[0];
    assert.deepEqual([...web.roleAttributes].sort(), ['a', 'b']);
    assert.equal(web.encryptionRequired, true, 'a field the file leaves out is left alone');
    await target.cli.expect(0, ['diff', '-f', file]);
  });

  it('merges the files of a directory', async () => {
    const dir = path.join(target.tmp, 'net');
    await mkdir(dir);
    const api = { name: 'api', encryptionRequired: false };
    await writeFile(path.join(dir, 'a-services.yaml'), stringify({ services: [api] }));
    const roles = { identityRoles: ['#all'], serviceRoles: ['@api'] };
    const policy = { name: 'dial-api', type: 'Dial', semantic: 'AnyOf', ...roles };
    await writeFile(path.join(dir, 'b-policies.json'), JSON.stringify({ servicePolicies: [policy] }));
    await writeFile(path.join(dir, 'notes.txt'), 'not read');
    const r = await target.cli.expect(0, ['apply', '-f', dir]);
    assert.match(r.stderr, /Applied: 2 created/);
    assert.deepEqual(await services(), ['api', 'web']);
  });

  it('refuses bad input naming the file, the entity and the field, before anything is written', async () => {
    const bad = async (name: string, text: string, message: RegExp) => {
      const p = path.join(target.tmp, name);
      await writeFile(p, text);
      const r = await target.cli.expect(2, ['apply', '-f', p]);
      assert.match(r.stderr, message);
      assert.ok(r.stderr.includes(p), `${r.stderr} names the file`);
    };
    const newService = { name: 'never', encryptionRequired: true };
    await bad('parse.yaml', 'services: [\n', /does not parse/);
    await bad('kind.yaml', stringify({ services: [newService], gadgets: [] }), /unknown kind 'gadgets'/);
    const coloured = stringify({ services: [{ ...newService, colour: 'red' }] });
    await bad('field.yaml', coloured, /service "never": unknown field 'colour'/);
    await bad('twice.yaml', stringify({ services: [newService, newService] }), /service "never" is declared twice/);
    const dangling = { name: 'p', type: 'Dial', semantic: 'AnyOf', serviceRoles: ['@never', '@nowhere'] };
    await bad(
      'ref.yaml',
      stringify({ services: [newService], servicePolicies: [dangling] }),
      /service policy "p": serviceRoles names service "nowhere", which is neither in the file nor on the controller/,
    );
    const bare = stringify({ services: [{ name: 'never' }] });
    await bad('required.yaml', bare, /service "never": 'encryptionRequired' is required/);
    const schema = { type: 'object', properties: { port: { type: 'integer' } } };
    const typed = { configTypes: [{ name: 'port.v1', schema }] };
    const data = stringify({ ...typed, configs: [{ name: 'c', configType: 'port.v1', data: { port: 'eighty' } }] });
    await bad('data.yaml', data, /config "c": data\.port must be integer/);
    assert.deepEqual(await services(), ['api', 'web'], 'nothing was written');
  });

  it('reports a field that cannot change after create as a conflict and writes nothing', async () => {
    const doc = parse(first);
    doc.configTypes.push({ name: 'other.v1', schema: { type: 'object' } });
    doc.configs[0].configType = 'other.v1';
    doc.services[0].roleAttributes = ['z'];
    doc.services[0].encryptionRequired = false;
    await writeFile(file, stringify(doc));
    const r = await target.cli.expect(6, ['apply', '-f', file]);
    const web = r.stderr.split('\n').find((l) => l.startsWith('! conflict service "web": '));
    assert.ok(web?.includes('encryptionRequired true → false'), r.stderr);
    assert.ok(web?.endsWith('(encryptionRequired cannot change after create)'), web);
    const fields = 'configType "web.v1" → "other.v1" (configType cannot change after create)';
    const conflict = `! conflict config "web-cfg": ${fields}`;
    assert.ok(r.stderr.split('\n').includes(conflict), r.stderr);
    assert.match(r.stderr, /2 conflicts: nothing was written/);
    const types = (await target.admin.get('/config-types', { query: { filter: 'name = "other.v1"' } })).body.data;
    assert.deepEqual(types, []);
  });

  it('says what was done and what not when the controller refuses a write; a second run finishes', async () => {
    // Two configs of one type on a service: the controller refuses it, which the file format cannot tell before.
    const strict = { name: 'strict.v1', schema: { type: 'object', required: ['port'] } };
    const config = (name: string) => ({ name, configType: 'strict.v1', data: { port: 1 } });
    const doc = {
      configTypes: [strict],
      configs: [config('strict-a'), config('strict-b')],
      services: [{ name: 'uses-strict', encryptionRequired: true, configs: ['strict-a', 'strict-b'] }],
      servicePolicies: [{ name: 'dial-strict', type: 'Dial', semantic: 'AnyOf', serviceRoles: ['@uses-strict'] }],
    };
    const p = path.join(target.tmp, 'resume.yaml');
    await writeFile(p, stringify(doc));
    const r = await target.cli.expect(6, ['apply', '-f', p]);
    assert.match(r.stderr, /^failed: create service "uses-strict": /m);
    assert.match(r.stderr, /^Applied: 3 created, 0 updated, 0 deleted\.$/m);
    assert.match(r.stderr, /^Not done: 1 failed, 1 not attempted/m);
    assert.deepEqual(await services(), ['api', 'web']);
    const policies = await target.admin.get('/service-policies', { query: { filter: 'name = "dial-strict"' } });
    assert.deepEqual(policies.body.data, [], 'the policy that names the service was not attempted');
    doc.services[0].configs = ['strict-a'];
    await writeFile(p, stringify(doc));
    const again = await target.cli.expect(0, ['apply', '-f', p]);
    assert.match(again.stderr, /^Plan: 2 to create, 0 to update/m);
    assert.deepEqual(await services(), ['api', 'uses-strict', 'web']);
  });

  it('prunes what the file no longer names only with --yes in a script, and lists it in the plan first', async () => {
    const p = path.join(target.tmp, 'prune.yaml');
    await writeFile(p, stringify({ services: [{ name: 'web' }] }));
    const refused = await target.cli.expect(3, ['apply', '-f', p, '--prune']);
    assert.match(refused.stderr, /^- delete service "api"$/m);
    assert.match(refused.stderr, /^- delete service "uses-strict"$/m);
    assert.match(refused.stderr, /without confirmation: nothing was written/);
    assert.match(refused.stderr, /--yes/);
    const dry = await target.cli.expect(0, ['apply', '-f', p, '--prune', '--dry-run']);
    assert.match(dry.stderr, /^Plan: 0 to create, 0 to update, 2 to delete, 0 conflicts\.$/m);
    assert.deepEqual(await services(), ['api', 'uses-strict', 'web']);
    const r = await target.cli.expect(0, ['apply', '-f', p, '--prune', '--yes']);
    assert.match(r.stderr, /^Applied: 0 created, 0 updated, 2 deleted\.$/m);
    assert.deepEqual(await services(), ['web']);
    await target.cli.expect(0, ['diff', '-f', p]);
  });

  it('never plans to prune built-in or system entities', async () => {
    const p = path.join(target.tmp, 'empty.yaml');
    const kinds = ['configTypes', 'configs', 'authPolicies', 'identities', 'edgeRouterPolicies', 'transitRouters'];
    await writeFile(p, stringify(Object.fromEntries(kinds.map((k) => [k, []]))));
    // The signer the file leaves alone enrolls with corp, whose delete the controller would refuse.
    const kept = await target.cli.expect(2, ['apply', '-f', p, '--prune', '--dry-run']);
    const named = 'external JWT signer "idp": enrollAuthPolicy names auth policy "corp", which --prune deletes';
    assert.ok(kept.stderr.includes(named), kept.stderr);
    await writeFile(p, stringify(Object.fromEntries(['externalJwtSigners', ...kinds].map((k) => [k, []]))));
    const r = await target.cli.expect(0, ['apply', '-f', p, '--prune', '--dry-run', '-o', 'json']);
    const plan: { changes: Array<{ action: string; kind: string; name: string }> } = JSON.parse(r.stdout);
    const deletes = plan.changes.map((c) => `${c.action} ${c.kind} ${c.name}`);
    assert.deepEqual(deletes.sort(), [
      'delete auth-policy corp',
      'delete config strict-a',
      'delete config strict-b',
      'delete config web-cfg',
      'delete config-type strict.v1',
      'delete config-type web.v1',
      'delete edge-router-policy all-er',
      'delete external-jwt-signer idp',
      'delete identity laptop',
      'update external-jwt-signer idp',
    ]);
  });

  it('writes the enrollment JWT of each new identity and edge router to --jwt-dir, never over a file', async () => {
    const dir = path.join(target.tmp, 'jwts');
    await mkdir(dir);
    const p = path.join(target.tmp, 'enrol.yaml');
    const laptop = { name: 'laptop-9', type: 'User', isAdmin: false };
    await writeFile(p, stringify({ identities: [laptop], edgeRouters: [{ name: 'er-9' }] }));
    const r = await target.cli.expect(0, ['apply', '-f', p, '--jwt-dir', dir]);
    assert.match(r.stderr, /wrote an enrollment JWT to .*laptop-9\.jwt/);
    for (const name of ['laptop-9', 'er-9']) {
      const file = path.join(dir, `${name}.jwt`);
      assert.match(await readFile(file, 'utf8'), /^eyJ[\w-]+\.[\w-]+\.[\w-]+\n$/);
      assert.equal((await stat(file)).mode & 0o777, 0o600);
    }
    await writeFile(p, stringify({ identities: [laptop, { ...laptop, name: 'laptop-10' }] }));
    await writeFile(path.join(dir, 'laptop-10.jwt'), 'keep');
    const refused = await target.cli.expect(2, ['apply', '-f', p, '--jwt-dir', dir]);
    assert.match(refused.stderr, /laptop-10\.jwt already exists/);
    assert.equal(await readFile(path.join(dir, 'laptop-10.jwt'), 'utf8'), 'keep');
    const res = await target.admin.get('/identities', { query: { filter: 'name = "laptop-10"' } });
    assert.deepEqual(res.body.data, [], 'nothing was created');
    await target.cli.expect(0, ['apply', '-f', p, '--jwt-dir', dir, '--force']);
    assert.match(await readFile(path.join(dir, 'laptop-10.jwt'), 'utf8'), /^eyJ/);
  });

  it('prunes a signer and the enrollment auth policy that names it, clearing the signer first', async () => {
    const p = path.join(target.tmp, 'no-signers.yaml');
    await writeFile(p, stringify({ externalJwtSigners: [], authPolicies: [] }));
    const r = await target.cli.expect(0, ['apply', '-f', p, '--prune', '--yes']);
    const clear =
      '~ update external JWT signer "idp": enrollAuthPolicy "corp" → null (so that auth policy "corp" can be deleted)';
    assert.ok(r.stderr.split('\n').includes(clear), r.stderr);
    assert.match(r.stderr, /^Applied: 0 created, 1 updated, 2 deleted\.$/m);
    assert.deepEqual((await target.admin.get('/external-jwt-signers')).body.data, []);
    await target.cli.expect(0, ['diff', '-f', p]);
  });

  it('refuses, before writing anything, to prune a policy an identity the file does not declare uses', async () => {
    const primary = {
      cert: { allowed: true, allowExpiredCerts: false },
      updb: DEFAULT_UPDB_RULES,
      extJwt: { allowed: false, allowedSigners: [] },
    };
    const policy = await target.admin.post('/auth-policies', {
      name: 'kiosk-only',
      primary,
      secondary: { requireTotp: false },
    });
    assertStatus(policy, 201, 'create auth policy');
    const made = await target.admin.post('/identities', {
      name: 'kiosk',
      type: 'Device',
      isAdmin: false,
      authPolicyId: policy.body.data.id,
    });
    assertStatus(made, 201, 'create identity');
    const kiosk = made.body.data as { id: string };
    try {
      const p = path.join(target.tmp, 'no-policies.yaml');
      await writeFile(p, stringify({ authPolicies: [] }));
      const r = await target.cli.expect(2, ['apply', '-f', p, '--prune', '--yes']);
      assert.match(r.stderr, /identity "kiosk": authPolicy names auth policy "kiosk-only", which --prune deletes/);
      const kept = await target.admin.get('/auth-policies', { query: { filter: 'name = "kiosk-only"' } });
      assert.equal(kept.body.data.length, 1, 'nothing was deleted');
    } finally {
      // Gone again, whatever happened, so that what follows sees the target as before.
      assertStatus(await target.admin.delete(`/identities/${kiosk.id}`), 200, 'delete identity');
      assertStatus(await target.admin.delete(`/auth-policies/${policy.body.data.id}`), 200, 'delete auth policy');
    }
  });

  it('requires -f, and shows where a file given without it goes', async () => {
    const r = await target.cli.expect(2, ['apply']);
    assert.match(r.stderr, /-f FILE/);
    for (const verb of ['diff', 'apply']) {
      const bare = await target.cli.expect(2, [verb, 'net.yaml']);
      assert.match(bare.stderr, /^error: the network file goes after -f: -f net\.yaml$/m);
    }
  });
});
