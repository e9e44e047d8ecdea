// Routers and terminators through the built CLI, against the real controller over HTTPS: an edge router created
// with its enrollment JWT in a 0600 file (checked against the controller's certificate), --tunneler, re-enroll,
// transit routers as their own noun, and terminators naming their service and router by name.
import assert from 'node:assert/strict';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { jsonItems } from '../helpers/cli.js';
import { useCliFixture } from '../helpers/cli-fixture.js';
import { assertStatus } from '../helpers/controller.js';
import { verifyEnrollmentJwt } from '../helpers/jwt.js';

const f = useCliFixture('router-cli');

describe('ctl router, ctl transit-router and ctl terminator', () => {
  it('creates an edge router and writes its erott enrollment JWT to a file only the owner can read', async () => {
    const file = path.join(f.tmp, 'er-1.jwt');
    const r = await f.cli.expect(0, [
      'router',
      'create',
      'er-1',
      '-a',
      'public,eu',
      '--cost',
      '5',
      '--no-traversal',
      '--jwt-output',
      file,
    ]);
    const id = r.stdout.trim();
    assert.match(r.stderr, /wrote the enrollment JWT/);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    const jwt = (await readFile(file, 'utf8')).trim();
    const detail = (await f.admin.get(`/edge-routers/${id}`)).body.data;
    assert.equal(jwt, detail.enrollmentJwt);
    await verifyEnrollmentJwt(jwt, f.ctl, { em: 'erott', sub: id, jti: detail.enrollmentToken });
    assert.deepEqual(
      [detail.roleAttributes, detail.cost, detail.noTraversal, detail.isTunnelerEnabled],
      [['public', 'eu'], 5, true, false],
    );
  });

  it('--tunneler makes a tunneler-enabled router, whose Router identity shows in the identity list', async () => {
    const r = await f.cli.expect(0, ['router', 'create', 'er-tun', '--tunneler']);
    const id = r.stdout.trim();
    const identity = await f.admin.get(`/identities/${id}`);
    assertStatus(identity, 200);
    assert.equal(identity.body.data.typeId, 'Router');
    const list = await f.cli.expect(0, ['router', 'list', '-o', 'json']);
    const rows = jsonItems(JSON.parse(list.stdout));
    assert.deepEqual(rows.find((x) => x.name === 'er-tun')?.isTunnelerEnabled, true);
  });

  it('re-enroll gives a new JWT, on stdout with --jwt-output -, once confirmed', async () => {
    const before = (await f.admin.get('/edge-routers', { query: { filter: 'name = "er-1"' } })).body.data[0];
    // It removes the router's certificate: without a terminal to ask at, only --yes goes on.
    const unconfirmed = await f.cli.expect(3, ['router', 're-enroll', 'er-1', '--jwt-output', '-']);
    assert.match(unconfirmed.stderr, /re-enrolling edge router "er-1" needs confirmation\n {2}pass --yes/);
    assert.equal(unconfirmed.stdout, '');
    assert.equal((await f.admin.get(`/edge-routers/${before.id}`)).body.data.enrollmentJwt, before.enrollmentJwt);
    const r = await f.cli.expect(0, ['router', 're-enroll', 'er-1', '--yes', '--jwt-output', '-']);
    const jwt = r.stdout.trim();
    assert.notEqual(jwt, before.enrollmentJwt);
    const after = (await f.admin.get(`/edge-routers/${before.id}`)).body.data;
    assert.equal(jwt, after.enrollmentJwt);
    await verifyEnrollmentJwt(jwt, f.ctl, { em: 'erott', sub: before.id, jti: after.enrollmentToken });
    const missing = await f.cli.expect(5, ['router', 're-enroll', 'no-such-router']);
    assert.match(missing.stderr, /no edge router named/);
  });

  it('transit routers are their own noun; their list shows edge routers too, as OpenZiti lists them', async () => {
    const file = path.join(f.tmp, 'tr-1.jwt');
    const id = (
      await f.cli.expect(0, ['transit-router', 'create', 'tr-1', '--cost', '3', '--jwt-output', file])
    ).stdout.trim();
    await verifyEnrollmentJwt((await readFile(file, 'utf8')).trim(), f.ctl, { em: 'trott', sub: id });
    const list = await f.cli.expect(0, ['transit-router', 'list', '-o', 'json']);
    const names = jsonItems(JSON.parse(list.stdout)).map((x) => x.name);
    assert.ok(names.includes('tr-1') && names.includes('er-1'), String(names));
    const refused = await f.cli.expect(6, ['transit-router', 'update', 'er-1', '--cost', '1']);
    assert.match(refused.stderr, /edge-routers|cannot be updated/);
  });

  it('creates terminators naming the service and router by name, and lists them', async () => {
    const svc = await f.admin.post('/services', { name: 'web', encryptionRequired: true });
    assertStatus(svc, 201);
    const secret = path.join(f.tmp, 'host.secret');
    await writeFile(secret, Buffer.from([1, 2, 3, 250]));
    const r = await f.cli.expect(0, [
      'terminator',
      'create',
      '--service',
      'web',
      '--router',
      'er-1',
      '--binding',
      'edge',
      '--address',
      'hosted:web-1',
      '--precedence',
      'required',
      '--identity',
      'web-1',
      '--identity-secret-file',
      secret,
    ]);
    const term = (await f.admin.get(`/terminators/${r.stdout.trim()}`)).body.data;
    assert.deepEqual(
      [term.service.name, term.router.name, term.precedence, term.identity],
      ['web', 'er-1', 'required', 'web-1'],
    );
    const onTransit = await f.cli.expect(0, [
      'terminator',
      'create',
      '--service',
      'web',
      '--router',
      'tr-1',
      '--binding',
      'transport',
      '--address',
      'tcp:10.0.0.9:80',
    ]);
    assert.match(onTransit.stdout.trim(), /^\S+$/);
    const list = await f.cli.expect(0, ['terminator', 'list']);
    assert.match(list.stdout, /er-1.*edge.*hosted:web-1/);
    assert.match(list.stdout, /tr-1.*transport.*tcp:10\.0\.0\.9:80/);
    const bad = await f.cli.expect(5, [
      'terminator',
      'create',
      '--service',
      'nope',
      '--router',
      'er-1',
      '--binding',
      'edge',
      '--address',
      'x',
    ]);
    assert.match(bad.stderr, /no service named/);
  });
});
