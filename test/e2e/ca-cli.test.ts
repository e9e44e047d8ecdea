// `ctl ca create | verify | jwt` through the built CLI against the real controller, with CAs made by openssl:
// verified by a certificate ctl makes with the CA key, or by one openssl signed; checked on the server.
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { describeRun, jsonItems, parseJsonOutput } from '../helpers/cli.js';
import { useCliFixture } from '../helpers/cli-fixture.js';
import { unique } from '../helpers/controller.js';
import { opensslCa, opensslSigned } from '../helpers/openssl.js';

const f = useCliFixture('ca-cli');

const caByName = async (name: string) =>
  (await f.admin.get('/cas', { query: { filter: `name = "${name}"` } })).body.data[0];

describe('ctl ca', () => {
  it('create prints the id; verify --ca-key makes the verification certificate here; jwt writes the JWT', async () => {
    const name = unique('corp');
    const files = opensslCa(unique('corp-ca'));
    const created = await f.cli.expect(0, [
      'ca',
      'create',
      name,
      '--cert',
      files.cert,
      '--ott-ca',
      '--auth',
      '--roles',
      'corp,emea',
    ]);
    const ca = await caByName(name);
    assert.equal(created.stdout.trim(), ca.id);
    assert.equal(ca.isVerified, false);
    assert.equal(ca.isOttCaEnrollmentEnabled, true);
    assert.equal(ca.isAutoCaEnrollmentEnabled, false);
    assert.deepEqual(ca.identityRoles.sort(), ['corp', 'emea']);

    // Another CA's key is refused before anything is sent.
    const other = opensslCa(unique('other-ca'));
    const wrong = await f.cli.run(['ca', 'verify', name, '--ca-key', other.key]);
    assert.equal(wrong.code, 2, describeRun(['ca verify --ca-key other'], wrong));
    assert.match(wrong.stderr, /not the key of this CA/);

    await f.cli.expect(0, ['ca', 'verify', name, '--ca-key', files.key]);
    assert.equal((await caByName(name)).isVerified, true);
    const again = await f.cli.run(['ca', 'verify', name, '--ca-key', files.key]);
    assert.equal(again.code, 6, describeRun(['ca verify again'], again));
    assert.match(again.stderr, /CA_ALREADY_VERIFIED|already been verified/);

    const out = path.join(f.tmp, `${name}.jwt`);
    await f.cli.expect(0, ['ca', 'jwt', name, '--out', out]);
    assert.equal((await stat(out)).mode & 0o777, 0o600);
    const claims = JSON.parse(Buffer.from((await readFile(out, 'utf8')).trim().split('.')[1], 'base64url').toString());
    assert.equal(claims.em, 'ca');
    assert.equal(claims.sub, ca.id);

    const listed = jsonItems(parseJsonOutput(await f.cli.expect(0, ['ca', 'list', `name = "${name}"`, '-o', 'json'])));
    assert.equal(listed[0].isVerified, true);
  });

  it('verify --cert sends a verification certificate openssl signed; a wrong common name is refused', async () => {
    const name = unique('fleet');
    const files = opensslCa(unique('fleet-ca'));
    await f.cli.expect(0, ['ca', 'create', name, '--cert', files.cert, '--auto-enroll']);
    const token = (await caByName(name)).verificationToken as string;
    const wrongCn = path.join(f.tmp, 'wrong-cn.pem');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(wrongCn, opensslSigned(files, 'not-the-token', unique('wrong')));
    const refused = await f.cli.run(['ca', 'verify', name, '--cert', wrongCn]);
    assert.equal(refused.code, 6, describeRun(['ca verify wrong cn'], refused));
    assert.match(refused.stderr, /INVALID_COMMON_NAME|common name/);
    const good = path.join(f.tmp, 'good.pem');
    await writeFile(good, opensslSigned(files, token, unique('good')));
    await f.cli.expect(0, ['ca', 'verify', name, '--cert', good]);
    assert.equal((await caByName(name)).isVerified, true);
    const usage = await f.cli.run(['ca', 'verify', name]);
    assert.equal(usage.code, 2);
  });
});
