// The PKI verbs added to the built CLI, against the real controller: `ctl ca create --external-id-claim` (and the
// generic `ca update` replacing or clearing the claim), and `ctl authenticator request-extend [--roll-keys]`.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createCsr } from '../../src/protocol/csr.js';
import { describeRun } from '../helpers/cli.js';
import { useCliFixture } from '../helpers/cli-fixture.js';
import { assertStatus, createIdentity, unique } from '../helpers/controller.js';
import { opensslCa } from '../helpers/openssl.js';

const f = useCliFixture('pki-cli');

const caByName = async (name: string) =>
  (await f.admin.get('/cas', { query: { filter: `name = "${name}"` } })).body.data[0];

describe('ctl ca create --external-id-claim', () => {
  it('sends the claim (inline or @FILE); the controller completes it; update replaces and clears it', async () => {
    const name = unique('staff');
    const files = opensslCa(unique('staff-ca'));
    await f.cli.expect(0, [
      'ca',
      'create',
      name,
      '--cert',
      files.cert,
      '--auth',
      '--external-id-claim',
      '{"location":"SAN_EMAIL","matcher":"SUFFIX","matcherCriteria":"@corp.example","parser":"NONE"}',
    ]);
    assert.deepEqual((await caByName(name)).externalIdClaim, {
      location: 'SAN_EMAIL',
      matcher: 'SUFFIX',
      matcherCriteria: '@corp.example',
      parser: 'NONE',
      parserCriteria: null,
      index: 0,
    });

    const claimFile = path.join(f.tmp, 'claim.json');
    await writeFile(
      claimFile,
      JSON.stringify({
        location: 'SAN_URI',
        matcher: 'SCHEME',
        matcherCriteria: 'urn',
        parser: 'SPLIT',
        parserCriteria: ':',
        index: 2,
      }),
    );
    await f.cli.expect(0, ['ca', 'update', name, '--external-id-claim', `@${claimFile}`]);
    assert.equal((await caByName(name)).externalIdClaim.location, 'SAN_URI');
    await f.cli.expect(0, ['ca', 'update', name, '--external-id-claim', '']);
    assert.equal((await caByName(name)).externalIdClaim, undefined);
  });

  it('a claim the controller refuses names the member, and no CA is made; bad JSON never leaves the CLI', async () => {
    const name = unique('bad-claim');
    const files = opensslCa(unique('bad-claim-ca'));
    const refused = await f.cli.run([
      'ca',
      'create',
      name,
      '--cert',
      files.cert,
      '--external-id-claim',
      '{"location":"COMMON_NAME","matcher":"SCHEME","matcherCriteria":"x","parser":"NONE"}',
    ]);
    assert.equal(refused.code, 6, describeRun(['ca create bad claim'], refused));
    assert.match(refused.stderr, /externalIdClaim\.matcher/);
    assert.equal(await caByName(name), undefined);
    const usage = await f.cli.run(['ca', 'create', name, '--cert', files.cert, '--external-id-claim', '{not json']);
    assert.equal(usage.code, 2, describeRun(['ca create bad json'], usage));
  });
});

describe('ctl authenticator request-extend', () => {
  it('flags a certificate authenticator (with --roll-keys, the key too); a password one is refused', async () => {
    const name = unique('extend-me');
    const id = await createIdentity(f.admin, { name, enrollment: { ott: true } });
    const token = (await f.admin.get(`/identities/${id}`)).body.data.enrollment.ott.token;
    const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    assertStatus(
      await f.ctl.api.post('/enroll/ott', { token, clientCsr: createCsr(key, name) }, { api: 'client' }),
      200,
      'enroll',
    );
    const auth = (await f.admin.get('/authenticators', { query: { filter: `identity = "${id}"` } })).body.data[0];

    const done = await f.cli.expect(0, ['authenticator', 'request-extend', auth.id, '--roll-keys']);
    assert.match(done.stderr + done.stdout, /extend its certificate with a new key/);
    const flagged = (await f.admin.get(`/authenticators/${auth.id}`)).body.data;
    assert.equal(flagged.isExtendRequested, true);
    assert.equal(flagged.isKeyRollRequested, true);

    const admin = (await f.admin.get('/authenticators', { query: { filter: 'method = "updb"' } })).body.data[0];
    const refused = await f.cli.run(['authenticator', 'request-extend', admin.id]);
    assert.equal(refused.code, 6, describeRun(['request-extend updb'], refused));
    assert.match(refused.stderr, /only certificates can be extended|FORBIDDEN/);
    assert.equal((await f.admin.get(`/authenticators/${admin.id}`)).body.data.isExtendRequested, false);
  });
});
