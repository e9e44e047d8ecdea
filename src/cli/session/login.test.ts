import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { openProfileStore } from '../../client/profiles.js';
import { parseArgv } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';
import { startStubController } from '../../client/testing/stub-controller.js';
import type { StubController } from '../../client/testing/stub-controller.js';
import { tlsFixture } from '../../client/testing/tls-fixture.js';
import { DeclinedError, UsageError } from '../../console/errors.js';
import { buildLogin, runLogin } from './login.js';
import type { LoginOptions } from './login.js';

const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'ctl-login-'));
  temps.push(d);
  return d;
}

describe('ctl login flags', () => {
  const parse = async (argv: string[]) => {
    let seen: LoginOptions | undefined;
    const deps = testDeps({ configDir: tempDir() });
    await parseArgv(
      buildLogin(deps, async (o) => void (seen = o)),
      argv,
    );
    return seen;
  };

  it('maps argv to options', async () => {
    assert.deepEqual(
      await parse([
        'login',
        'ctrl:1280',
        '-u',
        'admin',
        '--password-stdin',
        '--ca-fingerprint',
        'AB',
        '--totp',
        '123456',
      ]),
      {
        url: 'ctrl:1280',
        username: 'admin',
        passwordStdin: true,
        caFingerprint: 'AB',
        totp: '123456',
      },
    );
    assert.deepEqual(await parse(['login', '-y', '--ca', 'ca.pem']), { url: undefined, yes: true, ca: 'ca.pem' });
  });

  it('rejects unknown flags and missing values', async () => {
    await assert.rejects(parse(['login', '--password', 'x']), { code: 'commander.unknownOption' });
    await assert.rejects(parse(['login', 'ctrl', '-u']), { code: 'commander.optionMissingArgument' });
  });

  const usage = async (opts: LoginOptions, o: { tty?: boolean; env?: NodeJS.ProcessEnv } = {}, pattern: RegExp) => {
    const deps = testDeps({ configDir: tempDir(), tty: o.tty, env: o.env });
    await assert.rejects(runLogin(opts, deps), (err: unknown) => {
      assert.ok(err instanceof UsageError, String(err));
      assert.match([err.message, ...err.details].join(' '), pattern);
      return true;
    });
  };

  it('refuses contradictory trust flags, bad URLs and bad fingerprints before asking anything', async () => {
    await usage(
      { url: 'c:1', username: 'u', yes: true, ca: 'x.pem' },
      { tty: true },
      /--yes and --ca cannot be combined/,
    );
    await usage(
      { url: 'c:1', username: 'u', ca: 'x', caFingerprint: 'AB' },
      { tty: true },
      /--ca and --ca-fingerprint cannot be combined/,
    );
    await usage({ url: 'http://c:1', username: 'u' }, { tty: true }, /HTTPS only/);
    await usage({ url: 'c:1', username: 'u', caFingerprint: 'xyz' }, { tty: true }, /not a SHA-256 fingerprint/);
  });

  it('certificate logins: flags that contradict each other, and files that hold no usable credential', async () => {
    await usage(
      { identity: 'id.json', username: 'u' },
      { tty: true },
      /--identity logs in with a certificate: -u cannot be used/,
    );
    await usage({ cert: 'a.crt', passwordStdin: true, key: 'a.key' }, { tty: true }, /--password-stdin cannot be used/);
    await usage({ cert: 'a.crt' }, { tty: true }, /--cert needs --key too/);
    await usage({ key: 'a.key' }, { tty: true }, /--key needs --cert too/);
    await usage(
      { identity: 'id.json', cert: 'a.crt', key: 'a.key' },
      { tty: true },
      /--identity cannot be combined with --cert/,
    );
    await usage(
      { identity: 'id.json', ca: 'x.pem' },
      { tty: true },
      /--identity trusts the CA bundle in the identity file: --ca/,
    );
    const dir = tempDir();
    await usage(
      { identity: path.join(dir, 'missing.json') },
      { tty: true },
      /cannot read the identity file \S*missing\.json: no such file or directory it is the JSON file/,
    );
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      path.join(dir, 'bad.json'),
      JSON.stringify({ ztAPI: 'https://c:1/edge/client/v1', id: { cert: 'pem:nope', key: 'pem:nope' } }),
    );
    await usage({ identity: path.join(dir, 'bad.json') }, { tty: true }, /the certificate cannot be read/);
    // The enrollment JWT given where its identity file belongs: say to redeem it.
    writeFileSync(path.join(dir, 'laptop.jwt'), 'eyJhbGciOiJSUzI1NiJ9.eyJlbSI6Im90dCJ9.c2lnbmF0dXJl\n');
    await usage(
      { identity: path.join(dir, 'laptop.jwt') },
      { tty: true },
      /laptop\.jwt is an enrollment JWT, not an identity file redeem it first: `ctl enroll \S*laptop\.jwt` writes/,
    );
    const fixture = tlsFixture();
    writeFileSync(path.join(dir, 'c.pem'), fixture.rootPem);
    writeFileSync(
      path.join(dir, 'enc.key'),
      '-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n',
    );
    await usage(
      { url: 'c:1', cert: path.join(dir, 'c.pem'), key: path.join(dir, 'enc.key') },
      { tty: true },
      /private key is encrypted/,
    );
  });

  it('without a terminal, names the flags for what it cannot ask', async () => {
    await usage({ url: 'c:1' }, {}, /pass -u USER/);
    await usage({ url: 'c:1', username: 'u' }, {}, /--password-stdin/);
    await usage({ url: 'c:1', username: 'u', passwordStdin: true }, {}, /stdin holds no password/);
    await usage({ username: 'u' }, { env: { CTL_PASSWORD: 'p' } }, /missing controller URL/);
  });
});

describe('ctl login against a controller', () => {
  let stub: StubController;
  before(async () => {
    stub = await startStubController();
  });
  after(() => stub.close());

  const rootFingerprint = () => new X509Certificate(tlsFixture().rootPem).fingerprint256;

  it('on a terminal asks for user, trust, then password, and reports on stderr only', async () => {
    const configDir = tempDir();
    const deps = testDeps({
      configDir,
      tty: true,
      answers: { input: ['admin'], password: ['admin-pw'], confirm: [true] },
    });
    const { io, prompts } = deps;
    await runLogin({ url: stub.url.replace('https://', '') }, deps);
    // Trust comes before the password: nobody types a password for a controller they then refuse.
    assert.deepEqual(prompts, ['Username:', `Trust this CA bundle for ${stub.url}?`, 'Password for admin:']);
    assert.equal(io.stdoutText(), '');
    assert.ok(io.stderrText().includes(`SHA-256: ${rootFingerprint()}`));
    assert.ok(io.stderrText().endsWith(`Logged in to ${stub.url} as admin (profile default)\n`));
    const store = await openProfileStore({ env: {}, dir: configDir });
    assert.equal(store.get('default')?.caFingerprint, rootFingerprint());
  });

  it('declining the CA ends the login before the password is asked (exit 3), and saves nothing', async () => {
    const configDir = tempDir();
    const deps = testDeps({ configDir, tty: true, answers: { input: ['admin'], confirm: [false] } });
    const { prompts } = deps;
    await assert.rejects(runLogin({ url: stub.url }, deps), DeclinedError);
    assert.deepEqual(prompts, ['Username:', `Trust this CA bundle for ${stub.url}?`]);
    assert.equal((await openProfileStore({ env: {}, dir: configDir })).get('default'), undefined);
  });

  it('in a script takes the password from stdin and pins the CA by fingerprint', async () => {
    const configDir = tempDir();
    const deps = testDeps({ configDir, stdin: 'admin-pw\nignored\n', globals: { profile: 'ci' } });
    const { io } = deps;
    await runLogin(
      { url: stub.url, username: 'admin', passwordStdin: true, caFingerprint: rootFingerprint().toLowerCase() },
      deps,
    );
    assert.equal(io.stderrText(), `Logged in to ${stub.url} as admin (profile ci)\n`);
    assert.ok((await openProfileStore({ env: {}, dir: configDir })).session('ci'));
  });

  it('takes CTL_USERNAME and CTL_PASSWORD, and warns on stderr when the profile is not the one used next', async () => {
    const configDir = tempDir();
    const env = { CTL_USERNAME: 'admin', CTL_PASSWORD: 'admin-pw' };
    await runLogin({ url: stub.url, yes: true }, testDeps({ configDir, env }));
    const deps = testDeps({ configDir, env, globals: { profile: 'second' } });
    const { io } = deps;
    await runLogin({ url: stub.url }, deps);
    assert.match(
      io.stderrText(),
      new RegExp(
        /^Logged in to .* as admin \(profile second\)\nwarning: profile second is not the current profile: /.source +
          /commands without --profile still use profile default\. Run `ctl profile use second`/.source,
      ),
    );
    assert.equal(io.stdoutText(), '', 'stdout carries results only');
    // CTL_PROFILE selects the profile for the commands that follow too: nothing to warn about.
    const viaEnv = testDeps({ configDir, env: { ...env, CTL_PROFILE: 'second' } });
    await runLogin({}, viaEnv);
    assert.doesNotMatch(viaEnv.io.stderrText(), /not the current profile/);
  });

  it('without --profile logs in the current profile, not `default`', async () => {
    const configDir = tempDir();
    const env = { CTL_USERNAME: 'admin', CTL_PASSWORD: 'admin-pw' };
    await runLogin({ url: stub.url, yes: true }, testDeps({ configDir, env, globals: { profile: 'lab' } }));
    const store = await openProfileStore({ env: {}, dir: configDir });
    assert.equal(store.current(), 'lab');
    const deps = testDeps({ configDir, env });
    const { io } = deps;
    await runLogin({}, deps);
    assert.match(io.stderrText(), /\(profile lab\)/);
    assert.equal(store.get('default'), undefined);
  });

  it('with no URL anywhere fails before asking for a username', async () => {
    const deps = testDeps({ configDir: tempDir(), tty: true, answers: { input: ['admin'] } });
    const { prompts } = deps;
    await assert.rejects(runLogin({}, deps), /missing controller URL/);
    assert.deepEqual(prompts, []);
  });

  it('without a terminal and without a trust flag, shows the CA and names the flags', async () => {
    const deps = testDeps({ configDir: tempDir(), env: { CTL_PASSWORD: 'admin-pw' } });
    const { io } = deps;
    await assert.rejects(runLogin({ url: stub.url, username: 'admin' }, deps), (err: unknown) => {
      assert.ok(err instanceof UsageError);
      assert.match(err.details.join(' '), /--ca-fingerprint SHA256.*--ca FILE.*--yes/);
      return true;
    });
    assert.ok(io.stderrText().includes(rootFingerprint()));
  });
});
