// The generic verbs every noun derives, through the built CLI against the real controller: names (and @name in
// roles) resolved to ids, tags as --tag edits, --dry-run sending nothing, missing values named without a terminal,
// and delete --where with its confirmation rule.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { CTL_BIN, ctlEnv, jsonEntity, parseJsonOutput } from '../helpers/cli.js';
import { useCliFixture } from '../helpers/cli-fixture.js';
import { assertStatus } from '../helpers/controller.js';

const f = useCliFixture('generic-cli');

/**
 * What the controller stored, read back with `show -o json`: this file is about the CLI, and reads through the CLI
 * do not depend on every computed field of a read model being served yet.
 */
async function entity(path: string): Promise<Record<string, any>> {
  const [, plural, id] = path.split('/');
  const noun = { services: 'service', 'service-policies': 'service-policy' }[plural]!;
  return jsonEntity(parseJsonOutput(await f.cli.expect(0, ['-o', 'json', noun, 'show', id])));
}

describe('generic verbs through ctl', () => {
  let laptop = '';
  let web = '';
  before(async () => {
    const res = await f.admin.post('/identities', {
      name: 'laptop-7',
      type: 'User',
      isAdmin: false,
      roleAttributes: ['sales'],
    });
    assertStatus(res, 201);
    laptop = res.body.data.id;
  });

  it('creates with typed tags and prints the id', async () => {
    web = (
      await f.cli.expect(0, ['service', 'create', 'web', '-a', 'public', '--tag', 'team=a', '--tag', 'replicas:=3'])
    ).stdout.trim();
    assert.deepEqual((await entity(`/services/${web}`)).tags, { team: 'a', replicas: 3 });
  });

  it('sends @name roles as @id, keeping #attributes', async () => {
    const r = await f.cli.expect(0, [
      'service-policy',
      'create',
      'dial-web',
      '--type',
      'Dial',
      '--semantic',
      'AnyOf',
      '--identities',
      '@laptop-7,#emea',
      '--services',
      '@web',
    ]);
    const policy = await entity(`/service-policies/${r.stdout.trim()}`);
    assert.deepEqual(policy.identityRoles, [`@${laptop}`, '#emea']);
    assert.deepEqual(policy.serviceRoles, [`@${web}`]);
  });

  it('names the flag of an unknown name (exit 5) and of a malformed role (exit 2), creating nothing', async () => {
    const unknown = await f.cli.expect(5, [
      'service-policy',
      'create',
      'p2',
      '--type',
      'Bind',
      '--semantic',
      'AllOf',
      '--services',
      '@ghost',
    ]);
    assert.match(unknown.stderr, /--services: no service named or with id "ghost"/);
    const malformed = await f.cli.expect(2, [
      'service-policy',
      'create',
      'p2',
      '--type',
      'Bind',
      '--semantic',
      'AllOf',
      '--identities',
      '#all,#x',
    ]);
    assert.match(malformed.stderr, /--identities.*#all selects everything and stands alone/);
    const found = await f.cli.expect(0, ['service-policy', 'list', 'name = "p2"', '-q']);
    assert.equal(found.stdout, '');
  });

  it('without a terminal, names every missing required value (exit 2)', async () => {
    const r = await f.cli.expect(2, ['service-policy', 'create']);
    assert.match(r.stderr, /missing NAME, --type VALUE, --semantic VALUE/);
  });

  it('--dry-run prints the request and changes nothing', async () => {
    const r = await f.cli.expect(0, ['service', 'update', 'web', '--tag', 'env=prod', '--dry-run']);
    const body = JSON.stringify({ tags: { team: 'a', replicas: 3, env: 'prod' } }, null, 2);
    assert.equal(r.stdout, `PATCH /edge/management/v1/services/${web}\n${body}\n`);
    assert.deepEqual((await entity(`/services/${web}`)).tags, { team: 'a', replicas: 3 });
  });

  it('update --tag sets a tag keeping the others; --remove-tag drops one', async () => {
    await f.cli.expect(0, ['service', 'update', 'web', '--tag', 'env=prod', '--remove-tag', 'team']);
    assert.deepEqual((await entity(`/services/${web}`)).tags, { replicas: 3, env: 'prod' });
  });

  it('delete --where refuses without --yes off a terminal, then deletes every match and says how many', async () => {
    for (const name of ['tmp-1', 'tmp-2', 'tmp-3'])
      assertStatus(await f.admin.post('/services', { name, encryptionRequired: true }), 201);
    await f.cli.expect(3, ['service', 'delete', '--where', 'name contains "tmp-"']);
    const dry = await f.cli.expect(0, ['service', 'delete', '--where', 'name contains "tmp-"', '--dry-run']);
    assert.equal(dry.stdout.trim().split('\n').length, 3);
    const r = await f.cli.expect(0, ['service', 'delete', '--where', 'name contains "tmp-"', '--yes']);
    assert.match(r.stderr, /deleted 3 of 3 services/);
    assert.equal((await f.cli.expect(0, ['service', 'list', 'name contains "tmp-"', '-q'])).stdout, '');
    await f.cli.expect(0, ['service', 'delete', '--where', 'name contains "tmp-"', '--yes']);
  });

  it('-o json|yaml prints the entity after create and update, and the ids gone after delete', async () => {
    const create = await f.cli.expect(0, ['-o', 'json', 'service', 'create', 'json-svc', '-a', 'x']);
    const created = jsonEntity(parseJsonOutput(create));
    assert.equal(created.name, 'json-svc');
    assert.deepEqual(created.roleAttributes, ['x']);
    assert.equal(created.encryptionRequired, true);
    const updated = await f.cli.expect(0, ['service', 'update', 'json-svc', '--add-attributes', 'y', '-o', 'yaml']);
    assert.match(updated.stdout, new RegExp(`^id: ${created.id}$`, 'm'));
    assert.match(updated.stdout, /^roleAttributes:\n {2}- x\n {2}- y$/m);
    const deleted = await f.cli.expect(0, ['service', 'delete', 'json-svc', '--yes', '-o', 'json']);
    assert.deepEqual(parseJsonOutput(deleted), [created.id]);
    // The table formats keep their short answers: the id on create, nothing on stdout for update and delete.
    const id = (await f.cli.expect(0, ['service', 'create', 'plain-svc'])).stdout;
    assert.match(id, /^\S+\n$/);
    assert.equal((await f.cli.expect(0, ['service', 'update', 'plain-svc', '-a', 'z'])).stdout, '');
    assert.equal((await f.cli.expect(0, ['service', 'delete', 'plain-svc', '--yes'])).stdout, '');
  });

  it('refuses text that is not UTF-8 (exit 2): an argument, a --data file, stdin; nothing is created', async () => {
    const latin1 = Buffer.from('{"name":"caf\xe9","type":"intercept.v1"}', 'latin1');
    const file = path.join(f.tmp, 'latin1.json');
    await writeFile(file, latin1);
    // The shell passes the Latin-1 byte itself: Node turns it into U+FFFD before ctl sees the argument.
    const shell = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const script = `exec "$0" "$1" identity create "$(printf 'caf\\351')"`;
      const child = spawn('/bin/sh', ['-c', script, process.execPath, CTL_BIN], {
        env: ctlEnv({ configDir: f.cli.configDir }),
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    assert.equal(shell.code, 2, shell.stderr);
    assert.match(shell.stderr, /argument 3 .* is not valid UTF-8/);
    const create = ['config', 'create', 'caf-data', '--type', 'intercept.v1', '--data'];
    const data = await f.cli.expect(2, [...create, `@${file}`]);
    assert.match(data.stderr, /latin1\.json is not valid UTF-8/);
    const piped = await f.cli.expect(2, [...create, '-'], { stdin: latin1 });
    assert.match(piped.stderr, /stdin is not valid UTF-8/);
    const stdin = await f.cli.expect(2, ['api', 'POST', '/identities', '--data', '@-'], { stdin: latin1 });
    assert.match(stdin.stderr, /stdin is not valid UTF-8/);
    await f.cli.expect(2, ['api', 'POST', '/identities', '--data', `@${file}`]);
    assert.deepEqual((await f.admin.get('/identities', { query: { filter: 'name contains "caf"' } })).body.data, []);
    assert.deepEqual((await f.admin.get('/configs', { query: { filter: 'name contains "caf"' } })).body.data, []);
  });
});
