// `ctl auth-policy create | update` with readable flags, `ctl signer test` naming the failing step, and
// `ctl login --ext-jwt`, through the built CLI against a real controller. The tokens are signed here, with the key
// of a certificate signer: the test plays the identity provider.
import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { describeRun, expectCtl, runCtl, tempConfigDir } from '../helpers/cli.js';
import { useCliFixture } from '../helpers/cli-fixture.js';
import { createIdentity, unique } from '../helpers/controller.js';
import { opensslCa } from '../helpers/openssl.js';

const f = useCliFixture('auth-policy-cli');
const nowS = () => Math.floor(Date.now() / 1000);

async function idpSetup() {
  const name = unique('idp');
  const files = opensslCa(name, { isCa: false });
  const key = createPrivateKey(readFileSync(files.key, 'utf8'));
  const issuer = `https://${name}.example`;
  await f.cli.expect(0, [
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
    'kid-1',
  ]);
  const id = (await f.admin.get('/external-jwt-signers', { query: { filter: `name = "${name}"` } })).body.data[0]
    .id as string;
  const token = async (claims: Record<string, unknown>, header: Record<string, unknown> = {}) => {
    const jwt = await new SignJWT({ iss: issuer, aud: 'ctl', exp: nowS() + 300, ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: 'kid-1', ...header } as { alg: string })
      .sign(key);
    const file = path.join(f.tmp, `${unique('token')}.jwt`);
    writeFileSync(file, `${jwt}\n`);
    return { jwt, file };
  };
  return { name, id, token };
}

describe('ctl auth-policy', () => {
  it('create with readable flags makes the nested policy; update changes only what it names', async () => {
    const idp = await idpSetup();
    const name = unique('strict');
    const created = await f.cli.expect(0, [
      'auth-policy',
      'create',
      name,
      '--primary',
      'password,ext-jwt',
      '--signers',
      idp.name,
      '--min-password-length',
      '12',
      '--require-special-char',
      '--require-number',
      '--require-mixed-case',
      '--max-attempts',
      '5',
      '--lockout',
      '1h',
      '--require-totp',
    ]);
    const id = created.stdout.trim();
    const p = (await f.admin.get(`/auth-policies/${id}`)).body.data;
    assert.equal(p.name, name);
    assert.deepEqual(p.primary, {
      cert: { allowed: false, allowExpiredCerts: false },
      updb: {
        allowed: true,
        minPasswordLength: 12,
        requireSpecialChar: true,
        requireNumberChar: true,
        requireMixedCase: true,
        maxAttempts: 5,
        lockoutDurationMinutes: 60,
      },
      extJwt: { allowed: true, allowedSigners: [idp.id] },
    });
    assert.deepEqual(p.secondary, { requireTotp: true, requireExtJwtSigner: null });

    const renamed = await f.cli.expect(0, ['auth-policy', 'update', name, '--name', `${name}-2`]);
    assert.equal(renamed.stderr, `updated auth policy "${name}-2"\n`, 'named by its new name');
    await f.cli.expect(0, ['auth-policy', 'update', `${name}-2`, '--name', name]);
    await f.cli.expect(0, [
      'auth-policy',
      'update',
      name,
      '--require-ext-jwt',
      idp.name,
      '--no-require-totp',
      '--lockout',
      '15m',
    ]);
    const q = (await f.admin.get(`/auth-policies/${id}`)).body.data;
    assert.deepEqual(q.secondary, { requireTotp: false, requireExtJwtSigner: idp.id });
    assert.equal(q.primary.updb.lockoutDurationMinutes, 15);
    assert.equal(q.primary.updb.minPasswordLength, 12, 'untouched');

    // The signer it names cannot go; the policy's refusal reaches the user.
    const del = await f.cli.run(['signer', 'delete', idp.name, '--yes']);
    assert.notEqual(del.code, 0, describeRun(['signer delete'], del));
    assert.match(del.stderr, /auth policy|referenced/i);

    const bad = await f.cli.run(['auth-policy', 'create', unique('x'), '--primary', 'password,smoke-signals']);
    assert.equal(bad.code, 2, describeRun(['auth-policy create --primary bad'], bad));
    assert.match(bad.stderr, /smoke-signals/);
    const list = await f.cli.expect(0, ['auth-policy', 'list']);
    assert.match(list.stdout, new RegExp(name));
    assert.equal(
      (await f.cli.run(['auth-policy', 'delete', 'default', '--yes'])).code !== 0,
      true,
      'the default policy stays',
    );
  });
});

describe('ctl signer test', () => {
  it('says which step a token fails, then finds the identity and checks its policy', async () => {
    const idp = await idpSetup();
    const identityName = unique('jwt-user');
    const identityId = await createIdentity(f.admin, { name: identityName });
    const run = async (file: string, code: number, pattern: RegExp) => {
      const r = await f.cli.run(['signer', 'test', idp.name, file]);
      assert.equal(r.code, code, describeRun(['signer test', file], r));
      assert.match(code === 0 ? r.stdout : r.stderr, pattern, describeRun(['signer test', file], r));
      return r;
    };
    const ok = await run((await idp.token({ sub: identityId })).file, 0, new RegExp(identityName));
    assert.match(ok.stderr, /ok\s+signature/);
    await run((await idp.token({ sub: identityId }, { kid: 'kid-2' })).file, 6, /kid check/);
    await run((await idp.token({ sub: identityId, iss: 'https://other.example' })).file, 6, /issuer check/);
    await run((await idp.token({ sub: identityId, aud: 'someone-else' })).file, 6, /audience check/);
    await run((await idp.token({ sub: identityId, exp: nowS() - 10 })).file, 6, /expiry check/);
    await run((await idp.token({ sub: identityId, nbf: nowS() + 600 })).file, 6, /not before check/);
    await run((await idp.token({ ext: 'no sub' })).file, 6, /claim check/);
    await run((await idp.token({ sub: 'nobody-has-this-id' })).file, 6, /identity check/);
    const { jwt } = await idp.token({ sub: identityId });
    const [h, p, s] = jwt.split('.');
    const tampered = path.join(f.tmp, 'tampered.jwt');
    const claims = { ...JSON.parse(Buffer.from(p!, 'base64url').toString()), sub: 'admin' };
    writeFileSync(tampered, `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`);
    await run(tampered, 6, /signature check/);
    const none = path.join(f.tmp, 'none.jwt');
    writeFileSync(none, `${Buffer.from('{"alg":"none","kid":"kid-1"}').toString('base64url')}.${p}.`);
    await run(none, 6, /algorithm check/);
    // stdin works too.
    const viaStdin = await f.cli.run(['signer', 'test', idp.name, '-'], { stdin: jwt });
    assert.equal(viaStdin.code, 0, describeRun(['signer test -'], viaStdin));
    // A policy that forbids ext-jwt: the token is fine, the login would not be.
    const policyId = (
      await f.cli.expect(0, ['auth-policy', 'create', unique('no-jwt'), '--primary', 'password'])
    ).stdout.trim();
    await f.admin.patch(`/identities/${identityId}`, { authPolicyId: policyId }, { api: 'management' });
    await run((await idp.token({ sub: identityId })).file, 6, /auth policy check: .* does not allow ext-jwt logins/);
    // A policy that allows ext-jwt from another signer only: the rule the controller applies at login.
    const other = await idpSetup();
    const othersOnly = ['auth-policy', 'create', unique('other-idp'), '--primary', 'ext-jwt', '--signers', other.name];
    const otherPolicyId = (await f.cli.expect(0, othersOnly)).stdout.trim();
    await f.admin.patch(`/identities/${identityId}`, { authPolicyId: otherPolicyId }, { api: 'management' });
    await run((await idp.token({ sub: identityId })).file, 6, /auth policy check: .* allows other signers only/);
    await f.admin.patch(`/identities/${identityId}`, { authPolicyId: 'default' }, { api: 'management' });
  });
});

describe('ctl login --ext-jwt', () => {
  it('logs in with a token from a file or stdin; a bad token is an auth failure', async () => {
    const idp = await idpSetup();
    const identityName = unique('jwt-login');
    const identityId = await createIdentity(f.admin, { name: identityName });
    const configDir = await tempConfigDir();
    const { file } = await idp.token({ sub: identityId });
    const login = await expectCtl(0, ['login', f.ctl.url, '--ext-jwt', file, '--ca', f.ctl.caFile], { configDir });
    assert.match(login.stderr, new RegExp(identityName));
    const me = await expectCtl(0, ['whoami'], { configDir });
    assert.match(me.stdout, new RegExp(identityName));
    // When the session ends, the hint says how this profile logs in again.
    const sessions = (await f.admin.get('/api-sessions', { query: { filter: `identityId = "${identityId}"` } })).body
      .data as { id: string }[];
    for (const s of sessions) await f.admin.delete(`/api-sessions/${s.id}`);
    const ended = await runCtl(['whoami'], { configDir });
    assert.equal(ended.code, 4, describeRun(['whoami after the session ended'], ended));
    assert.match(ended.stderr, new RegExp(`--ext-jwt ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    const { jwt } = await idp.token({ sub: identityId });
    await expectCtl(0, ['login', f.ctl.url, '--ext-jwt', '-', '--ca', f.ctl.caFile, '--profile', 'stdin'], {
      configDir,
      stdin: jwt,
    });
    const expired = await idp.token({ sub: identityId, exp: nowS() - 5 });
    const refused = await runCtl(
      ['login', f.ctl.url, '--ext-jwt', expired.file, '--ca', f.ctl.caFile, '--profile', 'bad'],
      { configDir },
    );
    assert.equal(refused.code, 4, describeRun(['login --ext-jwt expired'], refused));
    assert.match(refused.stderr, /signer test/);
    const mixed = await runCtl(['login', f.ctl.url, '--ext-jwt', file, '-u', 'admin'], { configDir });
    assert.equal(mixed.code, 2, describeRun(['login --ext-jwt -u'], mixed));
  });

  it('says to set up MFA when a policy requires TOTP an identity lacks, as other login methods do', async () => {
    const idp = await idpSetup();
    const policy = unique('jwt-totp');
    await f.cli.expect(0, [
      'auth-policy',
      'create',
      policy,
      '--primary',
      'ext-jwt',
      '--signers',
      idp.name,
      '--require-totp',
    ]);
    const policyId = (await f.admin.get('/auth-policies', { query: { filter: `name = "${policy}"` } })).body.data[0]
      .id as string;
    const identityId = await createIdentity(f.admin, { name: unique('jwt-mfa'), authPolicyId: policyId });
    const configDir = await tempConfigDir();
    const { file } = await idp.token({ sub: identityId });
    const login = await expectCtl(0, ['login', f.ctl.url, '--ext-jwt', file, '--ca', f.ctl.caFile], { configDir });
    assert.match(login.stderr, /requires MFA of this identity.*ctl mfa enable/);
    const both = await runCtl(['login', f.ctl.url, '--ext-jwt', '-', '--totp-stdin', '--ca', f.ctl.caFile], {
      configDir,
      stdin: 'x\n',
    });
    assert.equal(both.code, 2, describeRun(['login --ext-jwt - --totp-stdin'], both));
    assert.match(both.stderr, /cannot both read stdin/);
  });
});
