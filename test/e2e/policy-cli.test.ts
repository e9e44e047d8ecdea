// `ctl policy` through the built CLI against the real controller: every kind created with roles by name, the
// lists by kind and across kinds, update and delete, mistakes refused before any request, and `explain` in words
// and in JSON, before and after the policy that was missing exists.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonItems } from '../helpers/cli.js';
import { useCliFixture } from '../helpers/cli-fixture.js';
import { assertStatus } from '../helpers/controller.js';

const f = useCliFixture('policy-cli');

async function id(args: string[]): Promise<string> {
  return (await f.cli.expect(0, args)).stdout.trim();
}

describe('ctl policy', () => {
  let laptop: string;
  let crm: string;
  it('creates policies of every kind, with @names resolved to ids', async () => {
    laptop = await id(['identity', 'create', 'laptop-7', '-a', 'sales']);
    crm = await id(['service', 'create', 'crm', '--encryption-required']);
    await id(['router', 'create', 'edge-1', '-a', 'public']);
    const dial = await id(['policy', 'create', 'dial', 'sales-crm', '--identities', '#sales', '--services', '@crm']);
    const res = await f.admin.get(`/service-policies/${dial}`);
    assertStatus(res, 200);
    assert.equal(res.body.data.type, 'Dial');
    assert.equal(res.body.data.semantic, 'AllOf');
    assert.deepEqual(res.body.data.serviceRoles, [`@${crm}`]);
    assert.deepEqual(res.body.data.serviceRolesDisplay, [{ role: `@${crm}`, name: '@crm' }]);
    await id(['policy', 'create', 'router', 'public-routers', '--identities', '#all', '--routers', '#public']);
    await id([
      'policy',
      'create',
      'bind',
      'crm-host',
      '--identities',
      '@laptop-7',
      '--services',
      '@crm',
      '--semantic',
      'AnyOf',
    ]);
  });

  it('lists one kind, or every kind with the kind beside each', async () => {
    const dial = JSON.parse((await f.cli.expect(0, ['policy', 'list', 'dial', '-o', 'json'])).stdout);
    assert.deepEqual(
      jsonItems(dial).map((p) => p.name),
      ['sales-crm'],
    );
    const every = JSON.parse((await f.cli.expect(0, ['policy', 'list', '-o', 'json'])).stdout) as Array<{
      kind: string;
      name: string;
    }>;
    assert.deepEqual(every.map((p) => `${p.kind}:${p.name}`).sort(), [
      'bind:crm-host',
      'dial:sales-crm',
      'router:public-routers',
    ]);
    const table = await f.cli.expect(0, ['policy', 'list']);
    assert.match(table.stdout, /^KIND\s+ID\s+NAME/);
    assert.match(table.stdout, /router\s+\S+\s+public-routers\s+AllOf\s+#all\s+#public/);
    assert.match(table.stdout, /bind\s+\S+\s+crm-host\s+AnyOf\s+@laptop-7\s+@crm/, 'roles read as names');
    assert.equal(table.stderr, 'showing 1-3 of 3\n', 'the footer of every list');
    const part = await f.cli.expect(0, ['policy', 'list', '--limit', '1', '--offset', '1', '-o', 'json']);
    assert.equal(JSON.parse(part.stdout).length, 1, '--limit and --offset choose the rows shown');
    assert.equal(part.stderr, 'showing 2-2 of 3 (next page: --limit 1 --offset 2, or --all)\n');
    // One kind reads its roles as names too, as the list of every kind does (and so does the generic noun's list).
    for (const args of [
      ['policy', 'list', 'bind'],
      ['service-policy', 'list'],
    ]) {
      const one = await f.cli.expect(0, args);
      assert.match(one.stdout, /crm-host\s+Bind\s+AnyOf\s+@laptop-7\s+@crm/, args.join(' '));
      assert.doesNotMatch(one.stdout, new RegExp(`@${laptop}|@${crm}`), 'no @id');
    }
  });

  it('says in words what is missing, then that access is complete once it is not', async () => {
    const before = await f.cli.expect(0, ['policy', 'explain', 'laptop-7', 'crm']);
    assert.match(before.stdout, /"laptop-7" can dial "crm": granted by "sales-crm"/);
    assert.match(before.stdout, /"laptop-7" can bind "crm": granted by "crm-host"/);
    assert.match(
      before.stdout,
      /No edge router is shared: "laptop-7" may use 1 edge router .* "crm" is reachable through 0/,
    );
    await id(['policy', 'create', 'service-router', 'crm-routers', '--services', '@crm', '--routers', '#all']);
    const after = JSON.parse((await f.cli.expect(0, ['policy', 'explain', 'laptop-7', 'crm', '-o', 'json'])).stdout);
    assert.equal(after.identity.id, laptop);
    assert.equal(after.dial.allowed, true);
    assert.deepEqual(
      after.routers.shared.map((r: { name: string; isOnline: boolean }) => [r.name, r.isOnline]),
      [['edge-1', false]],
    );
    assert.match(after.summary[2], /1 edge router is shared \("edge-1"\); none is online/);
  });

  it("lists an identity's services by policy type, and a service's identities", async () => {
    await id(['service', 'create', 'crm-admin', '--encryption-required']);
    await id(['policy', 'create', 'dial', 'crm-admin-dial', '--identities', '@laptop-7', '--services', '@crm-admin']);
    const dial = await f.cli.expect(0, ['identity', 'services', 'laptop-7', '--dial', '-o', 'json']);
    assert.deepEqual(
      jsonItems(JSON.parse(dial.stdout))
        .map((s) => s.name)
        .sort(),
      ['crm', 'crm-admin'],
    );
    const bind = await f.cli.expect(0, ['identity', 'services', 'laptop-7', '--bind', '-q']);
    assert.equal(bind.stdout.trim(), crm);
    await f.cli.expect(2, ['identity', 'services', 'laptop-7', '--bind', '--dial']);
    const routers = await f.cli.expect(0, ['identity', 'routers', 'laptop-7', '-o', 'json']);
    assert.deepEqual(
      jsonItems(JSON.parse(routers.stdout)).map((r) => r.name),
      ['edge-1'],
      'routers: the edge routers its policies allow',
    );
    const users = await f.cli.expect(0, ['service', 'identities', 'crm', '-q']);
    assert.equal(users.stdout.trim(), laptop);
    await f.cli.expect(0, ['policy', 'delete', 'crm-admin-dial', '--yes']);
  });

  it('names the near miss when a policy selects only one side', async () => {
    await id(['service', 'create', 'wiki', '--encryption-required']);
    const r = await f.cli.expect(0, ['policy', 'explain', 'laptop-7', 'wiki']);
    assert.match(
      r.stdout,
      /cannot dial "wiki": no Dial policy selects both \("sales-crm" selects "laptop-7" but not "wiki"\)/,
    );
  });

  it('updates role sets by flag and deletes by name, whatever the kind', async () => {
    const renamed = await f.cli.expect(0, ['policy', 'update', 'crm-routers', '--name', 'crm-routers-2']);
    assert.match(renamed.stderr, /^updated service-router policy "crm-routers-2" \(/m);
    await f.cli.expect(0, ['policy', 'update', 'crm-routers-2', '--name', 'crm-routers']);
    const printed = await f.cli.expect(0, ['policy', 'update', 'sales-crm', '--services', '@crm,@wiki', '-o', 'yaml']);
    assert.match(printed.stdout, /^name: sales-crm$/m, '-o yaml prints the policy as changed');
    assert.match(printed.stdout, /^serviceRoles:\n {2}- "?@/m);
    const r = await f.cli.expect(0, ['policy', 'explain', 'laptop-7', 'wiki', '-o', 'json']);
    assert.equal(JSON.parse(r.stdout).dial.allowed, true);
    const listed = await f.cli.expect(0, ['policy', 'list', '-o', 'json']);
    const before = JSON.parse(listed.stdout) as Array<{ id: string; name: string }>;
    const gone = await f.cli.expect(0, ['policy', 'delete', 'crm-host', 'public-routers', '--yes', '-o', 'json']);
    const ids = before.filter((p) => ['crm-host', 'public-routers'].includes(p.name)).map((p) => p.id);
    assert.deepEqual((JSON.parse(gone.stdout) as string[]).sort(), ids.sort(), 'one array for both kinds');
    const left = JSON.parse((await f.cli.expect(0, ['policy', 'list', '-o', 'json'])).stdout) as Array<{
      name: string;
    }>;
    assert.deepEqual(left.map((p) => p.name).sort(), ['crm-routers', 'sales-crm']);
  });

  it('refuses roles without # or @, #all with others, flags of another kind (exit 2), sending nothing', async () => {
    const bare = await f.cli.expect(2, ['policy', 'create', 'dial', 'x', '--identities', 'sales']);
    assert.match(bare.stderr, /"sales" is no role: write #attribute, @name-or-id or #all/);
    assert.match(
      (await f.cli.expect(2, ['policy', 'create', 'dial', 'x', '--services', '#all,#web'])).stderr,
      /#all selects everything and stands alone/,
    );
    assert.match(
      (await f.cli.expect(2, ['policy', 'create', 'dial', 'x', '--routers', '#all'])).stderr,
      /--routers does not apply to dial policies/,
    );
    assert.match((await f.cli.expect(2, ['policy', 'create', 'listen', 'x'])).stderr, /listen/);
    const found = await f.admin.get('/service-policies', { query: { filter: 'name = "x"' } });
    assert.equal(found.body.data.length, 0);
  });

  it('prints the request with --dry-run and sends nothing', async () => {
    const r = await f.cli.expect(0, [
      'policy',
      'create',
      'bind',
      'planned',
      '--identities',
      '@laptop-7',
      '--services',
      '#web',
      '--dry-run',
    ]);
    assert.match(r.stdout, /^POST \/edge\/management\/v1\/service-policies/);
    assert.match(r.stdout, new RegExp(`"identityRoles":\\s*\\[\\s*"@${laptop}"`));
    const found = await f.admin.get('/service-policies', { query: { filter: 'name = "planned"' } });
    assert.equal(found.body.data.length, 0);
  });

  it('says when only a policy that requires posture checks grants access: no posture data, no session', async () => {
    await id(['service', 'create', 'vault', '--encryption-required']);
    const check = await f.admin.post('/posture-checks', { name: 'mfa-on-wake', typeId: 'MFA', promptOnWake: true });
    assertStatus(check, 201);
    await id([
      'policy',
      'create',
      'dial',
      'vault-dial',
      '--identities',
      '@laptop-7',
      '--services',
      '@vault',
      '--posture-checks',
      '@mfa-on-wake',
    ]);
    const r = await f.cli.expect(0, ['policy', 'explain', 'laptop-7', 'vault']);
    assert.match(r.stdout, /may dial "vault" by "vault-dial", but only by passing the posture checks "mfa-on-wake"/);
    const json = JSON.parse((await f.cli.expect(0, ['policy', 'explain', 'laptop-7', 'vault', '-o', 'json'])).stdout);
    assert.deepEqual([json.dial.allowed, json.dial.postureAllows], [true, false]);
  });

  it('reports an unknown @name as not found (exit 5), naming the flag', async () => {
    const r = await f.cli.expect(5, ['policy', 'create', 'dial', 'y', '--services', '@no-such-service']);
    assert.match(r.stderr, /^error: --services: no service named or with id "no-such-service"$/m);
    const update = await f.cli.expect(5, ['policy', 'update', 'vault-dial', '--identities', '@nobody']);
    assert.match(update.stderr, /^error: --identities: no identity named or with id "nobody"$/m);
  });
});
