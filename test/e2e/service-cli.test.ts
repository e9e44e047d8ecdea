// Services and configs through the built CLI against the real controller: configs checked against their built-in
// type's schema before they are sent, a service made from them by name, shown with its configs by name, and an
// identity given a config of its own for the service. What the CLI did is checked on the server through the
// validating HTTP helper (responses checked against OpenZiti's Swagger).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type LoggedInCli, jsonEntity, jsonItems, parseJsonOutput, withLoggedInCli } from '../helpers/cli.js';
import {
  type HttpHelper,
  type TestController,
  assertStatus,
  createIdentity,
  startTestController,
} from '../helpers/controller.js';

let ctl: TestController;
let admin: HttpHelper;
let cli: LoggedInCli;

before(async () => {
  ctl = await startTestController();
  admin = await ctl.admin();
  cli = await withLoggedInCli(ctl);
});

after(async () => {
  await cli?.cleanup();
  await ctl?.close();
});

const intercept = (host: string) =>
  JSON.stringify({ protocols: ['tcp'], addresses: [host], portRanges: [{ low: 443, high: 443 }] });

describe('a web service from built-in config types', () => {
  let serviceId: string;

  it('ctl config create refuses data that fails intercept.v1 before sending it, naming the path', async () => {
    const r = await cli.expect(6, [
      'config',
      'create',
      'web-intercept',
      '--type',
      'intercept.v1',
      '--data',
      '{"protocols":["tcp"],"addresses":["web.ziti"]}',
    ]);
    assert.match(r.stderr, /data\.portRanges is required/);
    const res = await admin.get('/configs', { query: { filter: 'name = "web-intercept"' } });
    assert.equal(res.body.data.length, 0, 'nothing was created');
  });

  it('ctl config create takes --type by name and --data inline or from stdin', async () => {
    const i = await cli.expect(0, [
      'config',
      'create',
      'web-intercept',
      '--type',
      'intercept.v1',
      '--data',
      intercept('web.ziti'),
    ]);
    const h = await cli.expect(0, ['config', 'create', 'web-host', '--type', 'host.v1', '--data', '-'], {
      stdin: '{"protocol":"tcp","address":"localhost","port":8080}',
    });
    for (const r of [i, h]) assert.match(r.stdout, /^\S+\n$/);
    const res = await admin.get(`/configs/${h.stdout.trim()}`);
    assertStatus(res, 200);
    assert.equal(res.body.data.configType.name, 'host.v1');
  });

  it('ctl service create web --config ... --encryption-required', async () => {
    const r = await cli.expect(0, [
      'service',
      'create',
      'web',
      '-a',
      'internal',
      '--config',
      'web-intercept',
      '--config',
      'web-host',
      '--encryption-required',
    ]);
    serviceId = r.stdout.trim();
    const res = await admin.get(`/services/${serviceId}`, { query: { configTypes: 'all' } });
    assertStatus(res, 200);
    assert.equal(res.body.data.encryptionRequired, true);
    assert.deepEqual(res.body.data.roleAttributes, ['internal']);
    assert.deepEqual(Object.keys(res.body.data.config).sort(), ['host.v1', 'intercept.v1']);
  });

  it('a second config of one type is refused with the reason (exit 6)', async () => {
    await cli.expect(0, [
      'config',
      'create',
      'other-intercept',
      '--type',
      'intercept.v1',
      '--data',
      intercept('other.ziti'),
    ]);
    const r = await cli.expect(6, [
      'service',
      'create',
      'web-2',
      '--config',
      'web-intercept',
      '--config',
      'other-intercept',
    ]);
    assert.match(r.stderr, /at most one config of each type/);
  });

  it('ctl service show web names its configs and their types; -o json keeps the ids', async () => {
    const table = await cli.expect(0, ['service', 'show', 'web']);
    assert.match(table.stdout, /web-intercept \(intercept\.v1\)/);
    assert.match(table.stdout, /web-host \(host\.v1\)/);
    const json = jsonEntity(parseJsonOutput(await cli.expect(0, ['service', 'show', 'web', '-o', 'json'])));
    assert.equal(json.configs.length, 2);
    assert.ok(json.configs.every((id: string) => !id.includes(' ')));
  });

  it('ctl identity service-configs sets, lists and unsets an identity own config for the service', async () => {
    const laptop = await createIdentity(admin, { name: 'laptop-9' });
    await cli.expect(0, [
      'config',
      'create',
      'laptop-intercept',
      '--type',
      'intercept.v1',
      '--data',
      intercept('laptop.web.ziti'),
    ]);
    const set = await cli.expect(0, ['identity', 'service-configs', 'laptop-9', '--set', 'web=laptop-intercept']);
    assert.match(set.stdout, /web\s+laptop-intercept/);
    const res = await admin.get('/services', {
      query: { filter: `id = "${serviceId}"`, configTypes: 'intercept.v1', asIdentity: laptop },
    });
    assertStatus(res, 200);
    assert.deepEqual(res.body.data[0].config['intercept.v1'].addresses, ['laptop.web.ziti']);
    const listed = jsonItems(
      parseJsonOutput(await cli.expect(0, ['identity', 'service-configs', 'laptop-9', '-o', 'json'])),
    );
    assert.equal(listed.length, 1);
    await cli.expect(0, ['identity', 'service-configs', 'laptop-9', '--unset', 'web=laptop-intercept']);
    const after = await admin.get(`/identities/${laptop}/service-configs`);
    assertStatus(after, 200);
    assert.equal(after.body.data.length, 0);
  });
});

describe('end-to-end encryption on service create', () => {
  it("is required unless --no-encryption-required, as OpenZiti's CLI does, and has no update flag", async () => {
    const plain = await cli.expect(0, ['service', 'create', 'enc-default']);
    const off = await cli.expect(0, ['service', 'create', 'enc-off', '--no-encryption-required']);
    const read = async (r: { stdout: string }) =>
      (await admin.get(`/services/${r.stdout.trim()}`)).body.data.encryptionRequired;
    assert.equal(await read(plain), true);
    assert.equal(await read(off), false);
    const help = await cli.expect(0, ['service', 'create', '--help']);
    assert.match(help.stdout, /--no-encryption-required turns it off/);
    // Fixed at creation: an update flag would say "updated" and change nothing.
    const update = await cli.expect(2, ['service', 'update', 'enc-off', '--encryption-required']);
    assert.match(update.stderr, /unknown option '--encryption-required'/);
    assert.equal(await read(off), false);
  });
});
