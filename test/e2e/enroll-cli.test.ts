// `ctl enroll`, `ctl login --identity|--cert` and `ctl enrollment refresh` through the built CLI against the real
// controller: an identity enrolled with ctl logs in over mutual TLS and runs whoami; openssl-converted keys (PKCS#1,
// SEC1 EC) log in too; expired, reused and forged JWTs and a JWT of another controller are refused with nothing
// spent. What happened is checked on the server through the validating HTTP helper.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { createEnrollmentJwtSigner } from '../../src/controller/pki/enrollment-jwt.js';
import { loadOrCreatePki } from '../../src/controller/pki/pki.js';
import { describeRun, expectCtl, parseJsonOutput, runCtl, tempConfigDir } from '../helpers/cli.js';
import { useCliFixture } from '../helpers/cli-fixture.js';
import { assertStatus, createIdentity, unique } from '../helpers/controller.js';
import { sharedTestPki } from '../helpers/fixtures.js';

const f = useCliFixture('enroll-cli');

/**
 * Creates an identity with `ctl identity create NAME [--updb U] --jwt-output FILE`; returns its id and the JWT file.
 */
async function newIdentity(extra: string[] = []): Promise<{ id: string; name: string; jwtFile: string }> {
  const name = unique('device');
  const jwtFile = path.join(f.tmp, `${name}.jwt`);
  await f.cli.expect(0, ['identity', 'create', name, ...extra, '--jwt-output', jwtFile]);
  const res = await f.admin.get('/identities', { query: { filter: `name = "${name}"` } });
  return { id: res.body.data[0].id, name, jwtFile };
}

const detail = async (id: string) => (await f.admin.get(`/identities/${id}`)).body.data;

describe('ctl enroll (ott) and ctl login --identity', () => {
  it('enrolls with a key made here, writes a 0600 identity file, which logs in over mTLS and runs whoami', async () => {
    const { id, name, jwtFile } = await newIdentity();
    const configDir = await tempConfigDir();
    const r = await expectCtl(0, ['enroll', jwtFile], { configDir });
    const out = jwtFile.replace(/\.jwt$/, '.json');
    assert.match(r.stderr, /ctl login --identity/);
    assert.equal((await stat(out)).mode & 0o777, 0o600);
    const file = JSON.parse(await readFile(out, 'utf8'));
    assert.equal(file.ztAPI, `${f.ctl.url}/edge/client/v1`);
    assert.match(file.id.key, /^pem:-----BEGIN PRIVATE KEY-----/);
    assert.match(file.id.cert, /^pem:-----BEGIN CERTIFICATE-----/);
    assert.equal(file.id.ca, `pem:${f.ctl.caPem}`);
    const now = await detail(id);
    assert.deepEqual(now.enrollment, {});
    assert.ok(now.authenticators.cert.fingerprint);

    await expectCtl(0, ['login', '--identity', out], { configDir });
    const who = parseJsonOutput(await expectCtl(0, ['whoami', '-o', 'json'], { configDir }));
    assert.equal(who.name, name);
    assert.equal(who.admin, false);

    // Never over an existing file without --force; with it, the spent token is refused and the file stays as it was.
    const again = await runCtl(['enroll', jwtFile], { configDir });
    assert.equal(again.code, 2, describeRun(['enroll', jwtFile], again));
    assert.match(again.stderr, /already exists/);
    const before = await readFile(out, 'utf8');
    const forced = await runCtl(['enroll', jwtFile, '--force'], { configDir });
    assert.equal(forced.code, 6, describeRun(['enroll', '--force'], forced));
    assert.match(forced.stderr, /INVALID_ENROLLMENT_TOKEN/);
    assert.equal(await readFile(out, 'utf8'), before);
  });

  it('an RSA identity logs in by --cert and --key as openssl converts them (PKCS#1; SEC1 for an EC one)', async () => {
    const configDir = await tempConfigDir();
    let lastCert = '';
    for (const [keyType, convert] of [
      ['rsa', ['rsa', '-traditional']],
      ['ec', ['ec']],
    ] as const) {
      const { name, jwtFile } = await newIdentity();
      const out = path.join(f.tmp, `${name}-${keyType}.json`);
      await expectCtl(0, ['enroll', jwtFile, '--out', out, '--key-type', keyType], { configDir });
      const file = JSON.parse(await readFile(out, 'utf8'));
      const certFile = path.join(f.tmp, `${name}.crt`);
      const keyFile = path.join(f.tmp, `${name}.key`);
      await writeFile(certFile, file.id.cert.slice(4));
      lastCert = certFile;
      const converted = execFileSync('openssl', [...convert], {
        input: file.id.key.slice(4),
        encoding: 'utf8',
        stdio: ['pipe', 'pipe', 'ignore'],
      });
      assert.match(converted, keyType === 'rsa' ? /BEGIN RSA PRIVATE KEY/ : /BEGIN EC PRIVATE KEY/);
      await writeFile(keyFile, converted, { mode: 0o600 });
      await expectCtl(0, ['login', f.ctl.url, '--cert', certFile, '--key', keyFile, '--ca', f.ctl.caFile], {
        configDir,
      });
      assert.equal(parseJsonOutput(await expectCtl(0, ['whoami', '-o', 'json'], { configDir })).name, name);
    }
    // A key that is not the certificate's is refused before anything is sent.
    const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string;
    const otherKey = path.join(f.tmp, 'other.key');
    await writeFile(otherKey, other);
    const r = await runCtl(['login', f.ctl.url, '--cert', lastCert, '--key', otherKey, '--ca', f.ctl.caFile], {
      configDir,
    });
    assert.equal(r.code, 2, describeRun(['login --cert mismatch'], r));
    assert.match(r.stderr, /does not belong to the certificate/);
  });
});

describe('ctl enroll refuses, and nothing is spent', () => {
  it('a JWT signed by another controller, and a tampered one', async () => {
    const { id, jwtFile } = await newIdentity();
    const jwt = (await readFile(jwtFile, 'utf8')).trim();
    const [header, payload] = jwt.split('.');
    // The same claims (this controller's URL, the real token), signed by a key of another controller.
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const foreign = await new SignJWT(claims)
      .setProtectedHeader(JSON.parse(Buffer.from(header, 'base64url').toString()))
      .sign(stranger);
    const foreignFile = path.join(f.tmp, 'foreign.jwt');
    await writeFile(foreignFile, foreign);
    const configDir = await tempConfigDir();
    const r = await runCtl(['enroll', foreignFile, '--out', path.join(f.tmp, 'foreign.json')], { configDir });
    assert.equal(r.code, 1, describeRun(['enroll', 'foreign'], r));
    assert.match(r.stderr, /refusing to enroll/);
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url');
    const tampered = `${header}.${forged}.${jwt.split('.')[2]}`;
    const tamperedFile = path.join(f.tmp, 'tampered.jwt');
    await writeFile(tamperedFile, tampered);
    const t = await runCtl(['enroll', tamperedFile, '--out', path.join(f.tmp, 'tampered.json')], { configDir });
    assert.equal(t.code, 1, describeRun(['enroll', 'tampered'], t));
    assert.match(t.stderr, /refusing to enroll/);
    await assert.rejects(stat(path.join(f.tmp, 'foreign.json')));
    assert.ok((await detail(id)).enrollment.ott, 'the enrollment is still outstanding');
    await expectCtl(0, ['enroll', jwtFile], { configDir });
  });

  it('a JWT with text before or after it in the file is found and redeemed', async () => {
    for (const wrap of [(jwt: string) => `hello\n${jwt}\n`, (jwt: string) => `${jwt}\nregards, the admin\n`]) {
      const { id, name, jwtFile } = await newIdentity();
      const file = path.join(f.tmp, `${name}-in-text.jwt`);
      await writeFile(file, wrap((await readFile(jwtFile, 'utf8')).trim()));
      const r = await runCtl(['enroll', file], { configDir: await tempConfigDir() });
      assert.equal(r.code, 0, describeRun(['enroll', file], r));
      assert.deepEqual((await detail(id)).enrollment, {});
    }
  });

  it('an expired JWT is refused before the controller is asked', async () => {
    const { id } = await newIdentity();
    const token = (await detail(id)).enrollment.ott.token;
    const pki = await loadOrCreatePki(await sharedTestPki(), { hosts: ['127.0.0.1'] });
    const expired = await createEnrollmentJwtSigner(pki, f.ctl.url).sign({
      em: 'ott',
      sub: id,
      jti: token,
      exp: new Date(Date.now() - 60_000),
    });
    const file = path.join(f.tmp, 'expired.jwt');
    await writeFile(file, expired);
    const r = await runCtl(['enroll', file], { configDir: await tempConfigDir() });
    assert.equal(r.code, 6, describeRun(['enroll', 'expired'], r));
    assert.match(r.stderr, /expired/);
    assert.ok((await detail(id)).enrollment.ott);
  });

  it('ctl enrollment refresh: the old JWT is dead, the new one enrolls', async () => {
    const { id, jwtFile } = await newIdentity();
    const enrollmentId = (await detail(id)).enrollment.ott.id;
    const fresh = path.join(f.tmp, 'fresh.jwt');
    await f.cli.expect(0, ['enrollment', 'refresh', enrollmentId, '--expires-in', '2h', '--jwt-output', fresh]);
    assert.equal((await stat(fresh)).mode & 0o777, 0o600);
    const configDir = await tempConfigDir();
    const old = await runCtl(['enroll', jwtFile, '--out', path.join(f.tmp, 'old.json')], { configDir });
    assert.equal(old.code, 6, describeRun(['enroll', 'old'], old));
    assert.match(old.stderr, /INVALID_ENROLLMENT_TOKEN/);
    await expectCtl(0, ['enroll', fresh, '--out', path.join(f.tmp, 'fresh.json')], { configDir });
    const now = await detail(id);
    assert.deepEqual(now.enrollment, {}, 'the enrollment is spent');
    assert.ok(now.authenticators.cert);
  });
});

describe('ctl enrollment create', () => {
  it('writes the JWT (0600); a second of the method is refused; usage mistakes are found first', async () => {
    const name = unique('later');
    const id = await createIdentity(f.admin, { name });
    const out = path.join(f.tmp, `${name}.jwt`);
    await f.cli.expect(0, ['enrollment', 'create', name, '--method', 'ott', '--expires-in', '2h', '--jwt-output', out]);
    assert.equal((await stat(out)).mode & 0o777, 0o600);
    assert.ok((await detail(id)).enrollment.ott);
    const second = await f.cli.run(['enrollment', 'create', name, '--method', 'ott']);
    assert.equal(second.code, 6, describeRun(['enrollment create (second)'], second));
    assert.match(second.stderr, /ENROLLMENT_EXISTS|already exists/);
    assert.equal((await f.cli.run(['enrollment', 'create', name, '--method', 'updb'])).code, 2);
    const username = unique('later-user');
    const jwt = await f.cli.expect(0, ['enrollment', 'create', name, '--method', 'updb', '--username', username]);
    assert.equal(JSON.parse(Buffer.from(jwt.stdout.trim().split('.')[1], 'base64url').toString()).em, 'updb');
    const configDir = await tempConfigDir();
    await expectCtl(0, ['enroll', out, '--out', path.join(f.tmp, `${name}.json`)], { configDir });
  });
});

describe('ctl identity extend-cert', () => {
  it("renews the profile's identity file: the new certificate logs in, the old one no longer", async () => {
    const { id, jwtFile } = await newIdentity();
    const configDir = await tempConfigDir();
    const file = path.join(f.tmp, 'extend-me.json');
    await expectCtl(0, ['enroll', jwtFile, '--out', file], { configDir });
    await expectCtl(0, ['login', '--identity', file], { configDir });
    const before = JSON.parse(await readFile(file, 'utf8'));
    const oldFingerprint = (await detail(id)).authenticators.cert.fingerprint;
    const oldCopy = path.join(f.tmp, 'extend-me-old.json');
    await writeFile(oldCopy, JSON.stringify(before), { mode: 0o600 });
    await expectCtl(0, ['identity', 'extend-cert'], { configDir });
    const after = JSON.parse(await readFile(file, 'utf8'));
    assert.notEqual(after.id.cert, before.id.cert);
    assert.notEqual(after.id.key, before.id.key);
    // The new certificate names the identity as the enrolled one did: its id, not a placeholder.
    const leaf = (pem: string) =>
      new X509Certificate(pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/)![0]);
    assert.equal(leaf(after.id.cert).subject, `CN=${id}`);
    assert.equal(leaf(before.id.cert).subject, `CN=${id}`);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.notEqual((await detail(id)).authenticators.cert.fingerprint, oldFingerprint);
    await expectCtl(0, ['login', '--identity', file], { configDir });
    assert.equal((await runCtl(['login', '--identity', oldCopy], { configDir })).code, 4);
  });
});

describe('ctl authenticator revert', () => {
  it('the certificate stops working; the identity enrolls again with the new JWT and logs in', async () => {
    const { id, jwtFile } = await newIdentity();
    const configDir = await tempConfigDir();
    const first = path.join(f.tmp, 'revert-first.json');
    await expectCtl(0, ['enroll', jwtFile, '--out', first], { configDir });
    await expectCtl(0, ['login', '--identity', first], { configDir });
    const authId = (await detail(id)).authenticators.cert.id;
    const again = path.join(f.tmp, 'revert-again.jwt');
    // The credential goes: without a terminal to ask at, only --yes goes on.
    const unconfirmed = await f.cli.expect(3, ['authenticator', 'revert', authId, '--jwt-output', again]);
    assert.match(unconfirmed.stderr, /reverting authenticator \S+ needs confirmation/);
    await expectCtl(0, ['whoami'], { configDir });
    await f.cli.expect(0, ['authenticator', 'revert', authId, '--expires-in', '1h', '--jwt-output', again, '-y']);
    assert.ok((await detail(id)).enrollment.ott);
    const refused = await runCtl(['login', '--identity', first], { configDir });
    assert.equal(refused.code, 4, describeRun(['login --identity (reverted)'], refused));
    const second = path.join(f.tmp, 'revert-second.json');
    await expectCtl(0, ['enroll', again, '--out', second], { configDir });
    await expectCtl(0, ['login', '--identity', second], { configDir });
    await expectCtl(0, ['whoami'], { configDir });
  });
});

describe('ctl enroll (updb)', () => {
  it('sets the password from stdin; the identity then logs in with it', async () => {
    const username = unique('alice');
    const { id, jwtFile } = await newIdentity(['--updb', username]);
    const configDir = await tempConfigDir();
    const r = await expectCtl(0, ['enroll', jwtFile, '--password-stdin'], { configDir, stdin: 'Alice-Secret-1\n' });
    assert.match(r.stderr, new RegExp(`ctl login ${f.ctl.url.replace(/[.]/g, '\\.')} -u ${username}`));
    assertStatus(
      await f.ctl.api.post(
        '/authenticate',
        { username, password: 'Alice-Secret-1' },
        { query: { method: 'password' }, token: null },
      ),
      200,
    );
    assert.equal((await detail(id)).authenticators.updb.username, username);
    const bad = await runCtl(['enroll', jwtFile, '--out', 'x.json'], { configDir });
    assert.equal(bad.code, 2);
  });

  it("--username names the enrollment's user, any length it may have, and only warns when it differs", async () => {
    // Three letters: an enrollment may name one (OpenZiti's console makes them), where a body's username needs four.
    const username = `b${unique('').slice(1, 3)}`;
    const { id, jwtFile } = await newIdentity(['--updb', username]);
    const configDir = await tempConfigDir();
    const args = ['enroll', jwtFile, '--password-stdin', '--username', username];
    const r = await expectCtl(0, args, { configDir, stdin: 'Bob-Secret-12\n' });
    assert.doesNotMatch(r.stderr, /not '/);
    assert.equal((await detail(id)).authenticators.updb.username, username);

    const other = await newIdentity(['--updb', unique('dave')]);
    const w = await expectCtl(0, ['enroll', other.jwtFile, '--password-stdin', '--username', 'eve'], {
      configDir,
      stdin: 'Dave-Secret-12\n',
    });
    assert.match(w.stderr, /the enrollment was for username 'dave-[0-9a-f]+', not 'eve'/);
  });

  it("a password the auth policy refuses: the controller's reason is printed, and the enrollment stays", async () => {
    const policy = unique('long-passwords');
    await f.cli.expect(0, ['auth-policy', 'create', policy, '--primary', 'password', '--min-password-length', '12']);
    const { id, jwtFile } = await newIdentity(['--updb', unique('carol'), '--auth-policy', policy]);
    const configDir = await tempConfigDir();
    const r = await runCtl(['enroll', jwtFile, '--password-stdin'], { configDir, stdin: 'short-1\n' });
    assert.equal(r.code, 6, describeRun(['enroll', '--password-stdin'], r));
    assert.match(r.stderr, /enrollment refused/);
    assert.match(r.stderr, /at least 12 characters long/);
    assert.ok((await detail(id)).enrollment.updb, 'the enrollment is still outstanding');
  });

  it('usage mistakes are found before anything is read from the network', async () => {
    const { jwtFile } = await newIdentity();
    const configDir = await tempConfigDir();
    const r = await runCtl(['enroll', jwtFile, '--password-stdin'], { configDir, stdin: 'x\n' });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /updb/);
    const missing = await runCtl(['enroll', path.join(f.tmp, 'nope.jwt')], { configDir });
    assert.equal(missing.code, 2);
    const garbage = path.join(f.tmp, 'garbage.jwt');
    await writeFile(garbage, 'not a jwt');
    const g = await runCtl(['enroll', garbage], { configDir });
    assert.equal(g.code, 2, describeRun(['enroll', 'garbage'], g));
    assert.match(g.stderr, /garbage\.jwt holds no enrollment JWT/);
    assert.doesNotMatch(g.stderr, /bug/);
    await createIdentity(f.admin, { name: unique('unused') });
  });
});
