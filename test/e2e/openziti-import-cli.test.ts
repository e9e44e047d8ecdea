// Files written by OpenZiti's `ziti ops export` (small ones made by hand from its exporter's format, in
// test/fixtures/openziti-export) apply cleanly to a fresh controller: `@`-prefixed references, read-model fields,
// `typeId`, a signer's `enrollAuthPolicyId` (an id) and built-in entities are read as that format means them, and a
// second apply changes nothing.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/spec.js';
import { useCliFixture } from '../helpers/cli-fixture.js';
import { assertStatus } from '../helpers/controller.js';

const f = useCliFixture('openziti-import');
const fixture = (name: string) => path.join(REPO_ROOT, 'test', 'fixtures', 'openziti-export', name);

async function one(plural: string, name: string): Promise<Record<string, any>> {
  const res = await f.admin.get(`/${plural}`, { query: { filter: `name = "${name}"` } });
  assertStatus(res, 200);
  assert.equal(res.body.data.length, 1, `${plural} ${name}`);
  return res.body.data[0];
}

describe("files of OpenZiti's ops export", () => {
  it('applies its JSON to a fresh controller, names resolved, read-model fields and built-ins left alone', async () => {
    const r = await f.cli.expect(0, ['apply', '-f', fixture('export.json')]);
    const note = /read as written by OpenZiti's 'ziti ops export'; fields a create does not take were ignored: .*Admin/;
    assert.match(r.stderr, note);
    assert.match(r.stderr, /^Applied: 11 created, 0 updated, 0 deleted\.$/m);
    assert.doesNotMatch(r.stderr, /intercept\.v1|"Default"/, 'the built-in config type and auth policy are left alone');
    const cfg = await one('configs', 'app-cfg');
    assert.equal(cfg.configType.name, 'app.v1');
    const app = await one('services', 'app');
    assert.deepEqual(app.configs, [cfg.id]);
    const alice = await one('identities', 'alice');
    assert.equal(alice.authPolicyId, 'default');
    assert.deepEqual(alice.tags, { team: 'sales' });
    const dial = await one('service-policies', 'sales-dial-app');
    assert.deepEqual([...dial.identityRoles].sort(), ['#sales', `@${alice.id}`]);
    assert.deepEqual(dial.serviceRoles, [`@${app.id}`]);
    // The exporting controller's id of the enrollment auth policy: the built-in default's is every controller's.
    assert.equal((await one('external-jwt-signers', 'corp-idp')).enrollAuthPolicyId, 'default');
    // Read as the reference, not dropped among the fields a create does not take (the default would hide that).
    assert.doesNotMatch(r.stderr, /ignored: .*enrollAuthPolicyId/);
    const serp = await one('service-edge-router-policies', 'apps-public');
    assert.deepEqual(serp.edgeRouterRoles, [`@${(await one('edge-routers', 'er-west')).id}`]);
  });

  it('changes nothing when applied again, and its YAML form diffs clean', async () => {
    const again = await f.cli.expect(0, ['apply', '-f', fixture('export.json')]);
    assert.match(again.stderr, /^No changes: the controller matches the file\.$/m);
    await f.cli.expect(0, ['diff', '-f', fixture('export.yaml')]);
  });
});
