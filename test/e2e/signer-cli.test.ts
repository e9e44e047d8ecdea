// `ctl signer create | update | show | delete` through the built CLI against the real controller: the certificate
// given as @FILE, its facts derived on the server, the rules' refusals surfaced, and the anonymous client list.
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { describe, it } from 'node:test';
import { describeRun, jsonItems, parseJsonOutput } from '../helpers/cli.js';
import { useCliFixture } from '../helpers/cli-fixture.js';
import { assertStatus, unique } from '../helpers/controller.js';
import { DEFAULT_UPDB_RULES } from '../../src/resources/auth-policy.js';
import { opensslCa } from '../helpers/openssl.js';

const f = useCliFixture('signer-cli');

const signerByName = async (name: string) =>
  (await f.admin.get('/external-jwt-signers', { query: { filter: `name = "${name}"` } })).body.data[0];

describe('ctl signer', () => {
  it('create --cert-pem @FILE --kid; update; the anonymous client list; delete', async () => {
    const name = unique('idp');
    const files = opensslCa(unique('idp-cert'), { isCa: false });
    const issuer = `https://${name}.example`;
    const created = await f.cli.expect(0, [
      'signer',
      'create',
      name,
      '--enabled',
      '--issuer',
      issuer,
      '--audience',
      'ctl',
      '--cert-pem',
      `@${files.cert}`,
      '--kid',
      'key-1',
      '--external-auth-url',
      'https://idp.example/auth',
      '--scopes',
      'openid,email',
      '--scopes',
      'profile',
    ]);
    const signer = await signerByName(name);
    assert.equal(created.stdout.trim(), signer.id);
    assert.equal(signer.certPem, files.pem);
    assert.equal(signer.fingerprint, createHash('sha1').update(new X509Certificate(files.pem).raw).digest('hex'));
    assert.equal(signer.kid, 'key-1');
    assert.deepEqual(signer.scopes, ['openid', 'email', 'profile']);

    // The rule's refusal reaches the user naming the field, and nothing is created.
    const again = await f.cli.run([
      'signer',
      'create',
      unique('idp'),
      '--enabled',
      '--issuer',
      `${issuer}/other`,
      '--audience',
      'ctl',
      '--cert-pem',
      `@${files.cert}`,
    ]);
    assert.notEqual(again.code, 0, describeRun(['signer create without kid'], again));
    assert.match(again.stderr, /kid/);
    const missing = await f.cli.run([
      'signer',
      'create',
      unique('idp'),
      '--enabled',
      '--issuer',
      `${issuer}/x`,
      '--audience',
      'ctl',
      '--cert-pem',
      '@/nonexistent/idp.pem',
      '--kid',
      'k',
    ]);
    assert.equal(missing.code, 2, describeRun(['signer create missing file'], missing));

    await f.cli.expect(0, ['signer', 'update', name, '--no-enabled', '--scopes', '']);
    assert.equal((await signerByName(name)).enabled, false);
    assert.deepEqual((await signerByName(name)).scopes, []);
    const clientList = async () =>
      (
        await f.ctl.api
          .on('client')
          .get('/external-jwt-signers', { query: { limit: '100', offset: '0', sort: 'name asc' } })
      ).body.data as { name: string }[];
    assert.ok(!(await clientList()).some((s) => s.name === name));
    await f.cli.expect(0, ['signer', 'update', name, '--enabled']);
    assert.ok((await clientList()).some((s) => s.name === name));

    // The enrollment auth policy by name, as every reference; its former flag took only an id, and still works.
    const policy = unique('enrol');
    const primary = {
      cert: { allowed: true, allowExpiredCerts: false },
      updb: { ...DEFAULT_UPDB_RULES, allowed: false },
      extJwt: { allowed: true, allowedSigners: [] },
    };
    const res = await f.admin.post('/auth-policies', { name: policy, primary, secondary: { requireTotp: false } });
    assertStatus(res, 201);
    const policyId: string = res.body.data.id;
    await f.cli.expect(0, ['signer', 'update', name, '--enroll-auth-policy', policy]);
    assert.equal((await signerByName(name)).enrollAuthPolicyId, policyId);
    await f.cli.expect(0, ['signer', 'update', name, '--enroll-auth-policy-id', 'default']);
    assert.equal((await signerByName(name)).enrollAuthPolicyId, 'default');

    const shown = parseJsonOutput(await f.cli.expect(0, ['signer', 'show', name, '-o', 'json'])) as Record<
      string,
      unknown
    >;
    assert.equal(shown.commonName, new X509Certificate(files.pem).subject.replace(/^CN=/, ''));
    const listed = jsonItems(
      parseJsonOutput(await f.cli.expect(0, ['signer', 'list', `name = "${name}"`, '-o', 'json'])),
    );
    assert.equal(listed.length, 1);

    await f.cli.expect(0, ['signer', 'delete', name, '--yes']);
    assert.equal(await signerByName(name), undefined);
  });

  it('create without a source of keys, or with two, is a usage error naming both flags', async () => {
    const name = unique('idp');
    const files = opensslCa(unique('idp-cert'), { isCa: false });
    const base = ['signer', 'create', name, '--issuer', `https://${name}.example`, '--audience', 'ctl'];
    const jwks = ['--jwks-endpoint', `https://${name}.example/keys`];
    for (const [args, message] of [
      [base, /^error: give one of --cert-pem \(with --kid\) or --jwks-endpoint$/m],
      [[...base, '--cert-pem', `@${files.cert}`, '--kid', 'k', ...jwks], /^error: give only one of --cert-pem/m],
      [[...base, '--dry-run'], /give one of --cert-pem/],
    ] as const) {
      const r = await f.cli.expect(2, [...args]);
      assert.match(r.stderr, message);
      assert.equal(r.stdout, '');
    }
    assert.equal(await signerByName(name), undefined);
  });

  it('--cert-pem - reads the certificate from stdin when the command runs', async () => {
    const name = unique('idp');
    const files = opensslCa(unique('idp-cert'), { isCa: false });
    await f.cli.expect(
      0,
      [
        'signer',
        'create',
        name,
        '--enabled',
        '--issuer',
        `https://${name}.example`,
        '--audience',
        'ctl',
        '--cert-pem',
        '-',
        '--kid',
        'k-1',
      ],
      { stdin: files.pem },
    );
    assert.equal((await signerByName(name)).certPem, files.pem);
    await f.cli.expect(0, ['signer', 'delete', name, '--yes']);
  });
});
