// Sessions and profiles through the built CLI: login with --ca, --ca-fingerprint or --yes, the refusals (no trust
// decision without a terminal: exit 2 naming the flags; wrong password: exit 4), whoami, version, `ctl api`,
// profiles (list/use/show/remove, --profile, CTL_PROFILE), the environment overrides (CTL_CONTROLLER, CTL_USERNAME,
// CTL_PASSWORD, CTL_TOKEN), and the config directory's permissions and secrecy.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type AddressInfo, createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  type LoggedInCli,
  describeRun,
  expectCtl,
  jsonItems,
  parseJsonOutput,
  runCtl,
  tempConfigDir,
  withLoggedInCli,
} from '../helpers/cli.js';
import {
  type HttpHelper,
  type TestController,
  assertStatus,
  createUser,
  startTestController,
} from '../helpers/controller.js';
import { opensslCa } from '../helpers/openssl.js';
import { REPO_ROOT } from '../helpers/spec.js';

let ctl: TestController;
let admin: HttpHelper;
let bob: Awaited<ReturnType<typeof createUser>>;
const dirs: string[] = [];

before(async () => {
  ctl = await startTestController();
  admin = await ctl.admin();
  bob = await createUser(admin, { name: 'bob-laptop' });
});

after(async () => {
  for (const d of dirs) await rm(path.dirname(d), { recursive: true, force: true });
  await ctl?.close();
});

async function freshDir(): Promise<string> {
  const d = await tempConfigDir();
  dirs.push(d);
  return d;
}

async function loggedIn(opts: Parameters<typeof withLoggedInCli>[1] = {}): Promise<LoggedInCli> {
  const cli = await withLoggedInCli(ctl, opts);
  dirs.push(cli.configDir);
  return cli;
}

/** The SHA-256 fingerprint (AB:CD:... form) of the self-signed root in the controller's CA bundle. */
function rootFingerprint(): string {
  const blocks = ctl.caPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const certs = blocks.map((b) => new X509Certificate(b));
  const root = certs.find((c) => c.subject === c.issuer) ?? certs[0]!;
  return root.fingerprint256;
}

function loginArgs(extra: string[], username = ctl.adminUser): string[] {
  return ['login', ctl.url, '-u', username, '--password-stdin', ...extra];
}

describe('login', () => {
  it('with --ca: exit 0, then whoami shows the admin', async () => {
    const configDir = await freshDir();
    await expectCtl(0, loginArgs(['--ca', ctl.caFile]), { configDir, stdin: `${ctl.adminPassword}\n` });
    const who = await expectCtl(0, ['whoami'], { configDir });
    assert.match(who.stdout, /admin/i);
    const whoJson = await expectCtl(0, ['whoami', '-o', 'json'], { configDir });
    parseJsonOutput(whoJson);
  });

  it('with --ca-fingerprint of the root CA: exit 0', async () => {
    const configDir = await freshDir();
    await expectCtl(0, loginArgs(['--ca-fingerprint', rootFingerprint()]), {
      configDir,
      stdin: `${ctl.adminPassword}\n`,
    });
    await expectCtl(0, ['whoami'], { configDir });
  });

  it('with a wrong --ca-fingerprint: refused, nothing stored', async () => {
    const configDir = await freshDir();
    const wrong = rootFingerprint().replace(/^../, (b) => (b === '00' ? '11' : '00'));
    const args = loginArgs(['--ca-fingerprint', wrong]);
    const r = await runCtl(args, { configDir, stdin: `${ctl.adminPassword}\n` });
    assert.notEqual(r.code, 0, describeRun(args, r));
    assert.equal(r.stdout, '');
    await expectCtl(4, ['whoami'], { configDir });
  });

  it('with --yes (trust on first use, for scripts): exit 0', async () => {
    const configDir = await freshDir();
    await expectCtl(0, loginArgs(['--yes']), { configDir, stdin: `${ctl.adminPassword}\n` });
    await expectCtl(0, ['whoami'], { configDir });
  });

  it('without --ca, --ca-fingerprint or --yes and no terminal: exit 2 naming the flags, nothing stored', async () => {
    const configDir = await freshDir();
    const r = await expectCtl(2, loginArgs([]), { configDir, stdin: `${ctl.adminPassword}\n` });
    assert.ok(r.stderr.includes('--ca'), `stderr names --ca: ${r.stderr}`);
    assert.ok(r.stderr.includes('--ca-fingerprint'), `stderr names --ca-fingerprint: ${r.stderr}`);
    assert.equal(r.stdout, '');
    await expectCtl(4, ['whoami'], { configDir });
  });

  it('after a CA change on a profile that is not current, the re-trusting logins suggested name it', async () => {
    const configDir = await freshDir();
    const stdin = `${ctl.adminPassword}\n`;
    await expectCtl(0, loginArgs(['--ca', ctl.caFile]), { configDir, stdin });
    await expectCtl(0, loginArgs(['--ca', ctl.caFile, '--profile', 'qs2']), { configDir, stdin });
    // As if the controller of qs2 had been rebuilt with a new CA: the profile trusts a CA it no longer chains to.
    const file = path.join(configDir, 'config.json');
    const config = JSON.parse(await readFile(file, 'utf8'));
    config.profiles.qs2.caPem = opensslCa('rebuilt-elsewhere').pem;
    await writeFile(file, JSON.stringify(config));
    const list = await runCtl(['identity', 'list', '--profile', 'qs2'], { configDir });
    assert.equal(list.code, 1, describeRun(['identity list --profile qs2'], list));
    assert.match(list.stderr, /`ctl login \S+ --ca FILE --profile qs2`/);
    const login = await runCtl(loginArgs(['--yes', '--profile', 'qs2']), { configDir, stdin });
    assert.equal(login.code, 1, describeRun(['login --profile qs2'], login));
    assert.match(login.stderr, /has changed since this profile trusted it/);
    assert.match(login.stderr, /ctl login \S+ --ca-fingerprint \S+ --profile qs2 {3}\(or --ca FILE\)/);
  });

  it('with a wrong password: exit 4, no session', async () => {
    const configDir = await freshDir();
    const r = await expectCtl(4, loginArgs(['--ca', ctl.caFile]), { configDir, stdin: 'not-the-password\n' });
    assert.equal(r.stdout, '');
    assert.ok(r.stderr.length > 0);
    await expectCtl(4, ['whoami'], { configDir });
  });

  it('without a password and no terminal: exit 2 naming --password-stdin', async () => {
    const configDir = await freshDir();
    const r = await expectCtl(2, ['login', ctl.url, '-u', ctl.adminUser, '--ca', ctl.caFile], { configDir });
    assert.ok(r.stderr.includes('--password-stdin'), r.stderr);
  });

  it('whoami when never logged in: exit 4', async () => {
    const r = await expectCtl(4, ['whoami'], { configDir: await freshDir() });
    assert.equal(r.stdout, '');
  });

  it('never prints the password', async () => {
    const configDir = await freshDir();
    const r = await expectCtl(0, loginArgs(['--ca', ctl.caFile]), { configDir, stdin: `${ctl.adminPassword}\n` });
    assert.ok(!r.stdout.includes(ctl.adminPassword) && !r.stderr.includes(ctl.adminPassword));
  });
});

describe('version and api', () => {
  let cli: LoggedInCli;
  before(async () => {
    cli = await loggedIn();
  });

  it('ctl version prints the ctl version and the controller version', async () => {
    const pkg = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = await cli.expect(0, ['version']);
    assert.ok(r.stdout.includes(pkg.version), r.stdout);
    const v = await ctl.api.get('/version');
    assert.ok(
      r.stdout.includes(v.body.data.version),
      `the controller version ${v.body.data.version} is shown:\n${r.stdout}`,
    );
    const bare = await expectCtl(0, ['version'], { configDir: await freshDir() });
    assert.ok(bare.stdout.includes(pkg.version), 'works without any profile');
  });

  it('ctl api GET /identities prints the JSON response', async () => {
    const r = await cli.expect(0, ['api', 'GET', '/identities']);
    const doc = parseJsonOutput(r);
    assert.ok(Array.isArray(doc.data), 'the envelope is printed');
    assert.equal(typeof doc.meta.pagination.totalCount, 'number');
    assert.ok(doc.data.some((i: { name: string }) => i.name === 'bob-laptop'));
  });

  it('ctl api with an error response prints it and sets the exit code', async () => {
    const r = await cli.expect(5, ['api', 'GET', '/identities/no-such-id']);
    assert.equal(parseJsonOutput(r).error.code, 'NOT_FOUND');
  });
});

describe('profiles', () => {
  let cli: LoggedInCli;

  before(async () => {
    cli = await loggedIn();
    await cli.expect(
      0,
      ['login', ctl.url, '-u', bob.username, '--password-stdin', '--ca', ctl.caFile, '--profile', 'second'],
      {
        stdin: `${bob.password}\n`,
      },
    );
  });

  it('ctl profile list shows both and marks the current one', async () => {
    const r = await cli.expect(0, ['profile', 'list']);
    assert.match(r.stdout, /default/);
    assert.match(r.stdout, /second/);
    assert.match(r.stdout, /\*/);
    const j = await cli.expect(0, ['profile', 'list', '-o', 'json']);
    const names = jsonItems(parseJsonOutput(j)).map((p) => p.name);
    assert.deepEqual([...names].sort(), ['default', 'second']);
  });

  it('--profile and CTL_PROFILE select the profile; the flag wins over the environment', async () => {
    assert.match((await cli.expect(0, ['whoami'])).stdout, /admin/i);
    assert.ok((await cli.expect(0, ['whoami', '--profile', 'second'])).stdout.includes(bob.name));
    assert.ok((await cli.expect(0, ['whoami'], { env: { CTL_PROFILE: 'second' } })).stdout.includes(bob.name));
    const flagWins = await cli.expect(0, ['whoami', '--profile', 'default'], { env: { CTL_PROFILE: 'second' } });
    assert.ok(!flagWins.stdout.includes(bob.name), flagWins.stdout);
    // bob is not an admin: management commands are refused with exit 4
    await cli.expect(4, ['identity', 'list', '--profile', 'second']);
  });

  it('ctl profile use switches the current profile; show describes it without the token', async () => {
    await cli.expect(0, ['profile', 'use', 'second']);
    assert.ok((await cli.expect(0, ['whoami'])).stdout.includes(bob.name));
    const token = parseJsonOutput(await cli.expect(0, ['api', 'GET', '/current-api-session'])).data.token as string;
    assert.equal(typeof token, 'string');
    for (const args of [
      ['profile', 'show'],
      ['profile', 'show', '-o', 'json'],
      ['profile', 'show', 'second'],
      ['profile', 'list'],
      ['profile', 'list', '-o', 'json'],
    ]) {
      const r = await cli.expect(0, args);
      assert.ok(
        !r.stdout.includes(token) && !r.stderr.includes(token),
        `ctl ${args.join(' ')} must not print the token`,
      );
    }
    const shown = await cli.expect(0, ['profile', 'show']);
    assert.match(shown.stdout, /second/);
    assert.ok(shown.stdout.includes(ctl.url), shown.stdout);
    await cli.expect(0, ['profile', 'use', 'default']);
    assert.match((await cli.expect(0, ['whoami'])).stdout, /admin/i);
  });

  it('ctl profile use of an unknown profile fails without changing anything', async () => {
    const r = await cli.run(['profile', 'use', 'nope']);
    assert.notEqual(r.code, 0, describeRun(['profile', 'use', 'nope'], r));
    assert.match((await cli.expect(0, ['whoami'])).stdout, /admin/i);
  });

  it('ctl profile remove deletes it', async () => {
    let r = await cli.run(['profile', 'remove', 'second']);
    if (r.code === 3) r = await cli.run(['profile', 'remove', 'second', '--yes']);
    assert.equal(r.code, 0, describeRun(['profile', 'remove', 'second'], r));
    const list = await cli.expect(0, ['profile', 'list']);
    assert.doesNotMatch(list.stdout, /second/);
    const gone = await cli.run(['whoami', '--profile', 'second']);
    assert.notEqual(gone.code, 0);
  });
});

describe('--timeout and --verbose', () => {
  it('--verbose prints each request with its status and timing on stderr, leaving stdout alone', async () => {
    const cli = await loggedIn();
    const quiet = await cli.expect(0, ['whoami', '-o', 'json']);
    const r = await cli.expect(0, ['whoami', '-o', 'json', '--verbose']);
    assert.equal(r.stdout, quiet.stdout);
    assert.match(r.stderr, new RegExp(`^> GET ${ctl.url}/edge/\\S+ -> 200 \\(\\d+ ms\\)$`, 'm'));
  });

  it('--timeout bounds every call', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const url = `https://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const started = Date.now();
      const r = await runCtl(['whoami', '--timeout', '1s'], {
        configDir: await freshDir(),
        env: { CTL_CONTROLLER: url, CTL_TOKEN: 'x' },
      });
      assert.equal(r.code, 1, describeRun(['whoami'], r));
      assert.match(r.stderr, /no answer from .* within 1s/);
      assert.ok(Date.now() - started < 15_000, 'well before the 30 s default');
      await expectCtl(2, ['whoami', '--timeout', 'soon']);
    } finally {
      silent.close();
    }
  });
});

describe('concurrent writers', () => {
  it('ten parallel logins into one config directory keep all ten profiles and sessions', async () => {
    const configDir = await freshDir();
    const names = Array.from({ length: 10 }, (_, i) => `p${i}`);
    const runs = await Promise.all(
      names.map((n) =>
        runCtl(loginArgs(['--ca', ctl.caFile, '--profile', n]), { configDir, stdin: `${ctl.adminPassword}\n` }),
      ),
    );
    for (const [i, r] of runs.entries()) assert.equal(r.code, 0, describeRun(['login', '--profile', names[i]!], r));
    const listed = jsonItems(parseJsonOutput(await expectCtl(0, ['profile', 'list', '-o', 'json'], { configDir })));
    assert.deepEqual(listed.map((p: { name: string }) => p.name).sort(), names);
    const credentials = JSON.parse(await readFile(path.join(configDir, 'credentials.json'), 'utf8'));
    assert.deepEqual(Object.keys(credentials.sessions).sort(), names);
  });
});

describe('environment overrides', () => {
  let cli: LoggedInCli;
  before(async () => {
    cli = await loggedIn();
  });

  it("CTL_USERNAME and CTL_PASSWORD override the profile's user", async () => {
    const r = await cli.expect(0, ['whoami'], { env: { CTL_USERNAME: bob.username, CTL_PASSWORD: bob.password } });
    assert.ok(r.stdout.includes(bob.name), r.stdout);
    // the profile itself is untouched
    assert.match((await cli.expect(0, ['whoami'])).stdout, /admin/i);
  });

  it('CTL_CONTROLLER + CTL_USERNAME + CTL_PASSWORD work without any profile', async () => {
    const r = await expectCtl(0, ['whoami'], {
      configDir: await freshDir(),
      env: {
        CTL_CONTROLLER: ctl.url,
        CTL_USERNAME: bob.username,
        CTL_PASSWORD: bob.password,
        NODE_EXTRA_CA_CERTS: ctl.caFile,
      },
      process: true,
    });
    assert.ok(r.stdout.includes(bob.name), r.stdout);
  });

  it('a CTL_USERNAME/CTL_PASSWORD login ends its API session when the command ends, succeeded or failed', async () => {
    const carl = await createUser(admin, { name: `carl-${Date.now()}` });
    const env = {
      CTL_CONTROLLER: ctl.url,
      CTL_CA: ctl.caFile,
      CTL_USERNAME: carl.username,
      CTL_PASSWORD: carl.password,
    };
    const configDir = await freshDir();
    const sessionsOfCarl = async () =>
      (await admin.get('/api-sessions', { query: { filter: `identity = "${carl.id}"`, limit: -1 } })).body.data.length;
    assert.match((await expectCtl(0, ['whoami'], { configDir, env })).stdout, new RegExp(carl.name));
    // Refused (carl is no admin): the session is ended all the same.
    assert.equal((await runCtl(['identity', 'list'], { configDir, env })).code, 4);
    await expectCtl(0, ['mfa', 'status'], { configDir, env });
    await expectCtl(0, ['api', 'GET', '/current-identity'], { configDir, env });
    await expectCtl(0, ['whoami'], { configDir, env });
    assert.equal(await sessionsOfCarl(), 0, 'five one-off logins leave no API session behind');
  });

  it('stateless CI: CTL_CA or CTL_CA_FINGERPRINT trusts the controller without any profile', async () => {
    const creds = { CTL_CONTROLLER: ctl.url, CTL_USERNAME: bob.username, CTL_PASSWORD: bob.password };
    const configDir = await freshDir();
    const untrusted = await runCtl(['whoami'], { configDir, env: creds });
    assert.equal(untrusted.code, 1, describeRun(['whoami'], untrusted));
    assert.match(untrusted.stderr, /CTL_CA/);
    for (const trust of [{ CTL_CA: ctl.caFile }, { CTL_CA_FINGERPRINT: rootFingerprint() }]) {
      const r = await expectCtl(0, ['whoami'], { configDir, env: { ...creds, ...trust } });
      assert.ok(r.stdout.includes(bob.name), r.stdout);
    }
    const wrong = await runCtl(['whoami'], { configDir, env: { ...creds, CTL_CA_FINGERPRINT: 'AB'.repeat(32) } });
    assert.equal(wrong.code, 1, describeRun(['whoami'], wrong));
    assert.match(wrong.stderr, /CTL_CA_FINGERPRINT/);
    // ctl login takes them too, in place of --ca / --ca-fingerprint
    await expectCtl(0, ['login', ctl.url, '-u', bob.username, '--password-stdin'], {
      configDir,
      env: { CTL_CA: ctl.caFile },
      stdin: `${bob.password}\n`,
    });
    assert.ok((await expectCtl(0, ['whoami'], { configDir })).stdout.includes(bob.name));
  });

  it("CTL_CONTROLLER overrides the profile's controller", async () => {
    const r = await cli.run(['identity', 'list'], { env: { CTL_CONTROLLER: 'https://127.0.0.1:1' } });
    assert.notEqual(r.code, 0, 'the unreachable controller from the environment is used');
    assert.equal(r.stdout, '');
  });

  it('CTL_TOKEN overrides the stored session', async () => {
    const token = await ctl.api.login(bob.username, bob.password);
    const r = await cli.expect(0, ['whoami'], { env: { CTL_TOKEN: token } });
    assert.ok(r.stdout.includes(bob.name), r.stdout);
    await cli.expect(4, ['whoami'], { env: { CTL_TOKEN: 'garbage-token' } });
    await cli.expect(4, ['identity', 'list'], { env: { CTL_TOKEN: token } });
  });

  // Every way of choosing the profile against every override: CTL_PROFILE selects a profile whose values the other
  // variables still override (it once disabled them); only a typed --profile wins outright.
  it('the override matrix: CTL_PROFILE, --profile or the current profile, with each CTL_* override', async () => {
    await cli.expect(0, loginArgs(['--ca', ctl.caFile, '--profile', 'ci2']), { stdin: `${ctl.adminPassword}\n` });
    const bobToken = await ctl.api.login(bob.username, bob.password);
    const selections: Array<{ name: string; args: string[]; env: Record<string, string>; overridable: boolean }> = [
      { name: 'current profile', args: [], env: {}, overridable: true },
      { name: 'CTL_PROFILE=ci2', args: [], env: { CTL_PROFILE: 'ci2' }, overridable: true },
      { name: '--profile ci2', args: ['--profile', 'ci2'], env: {}, overridable: false },
      {
        name: '--profile ci2 beside CTL_PROFILE=nope',
        args: ['--profile', 'ci2'],
        env: { CTL_PROFILE: 'nope' },
        overridable: false,
      },
    ];
    const overrides: Array<{ name: string; env: Record<string, string>; code: number; who?: RegExp; err?: RegExp }> = [
      { name: 'none', env: {}, code: 0, who: /admin/i },
      { name: 'valid CTL_TOKEN', env: { CTL_TOKEN: bobToken }, code: 0, who: new RegExp(bob.name) },
      { name: 'bogus CTL_TOKEN', env: { CTL_TOKEN: 'bogus' }, code: 4, err: /CTL_TOKEN was rejected/ },
      // The stored session belongs to another controller: it is never sent to this one.
      { name: 'CTL_CONTROLLER', env: { CTL_CONTROLLER: 'https://127.0.0.1:1' }, code: 4, err: /127\.0\.0\.1:1/ },
      {
        name: 'CTL_USERNAME+CTL_PASSWORD',
        env: { CTL_USERNAME: bob.username, CTL_PASSWORD: bob.password },
        code: 0,
        who: new RegExp(bob.name),
      },
    ];
    for (const sel of selections) {
      for (const o of overrides) {
        const args = ['whoami', ...sel.args];
        const r = await cli.run(args, { env: { ...sel.env, ...o.env } });
        const want = sel.overridable ? o : overrides[0]!;
        const what = `${sel.name} with ${o.name}: ${describeRun(args, r)}`;
        assert.equal(r.code, want.code, what);
        if (want.who) assert.match(r.stdout, want.who, what);
        if (want.err) assert.match(r.stderr, want.err, what);
      }
    }
  });

  it('ctl help environment lists the variables', async () => {
    const r = await cli.expect(0, ['help', 'environment']);
    for (const v of [
      'CTL_CONFIG_DIR',
      'CTL_PROFILE',
      'CTL_CONTROLLER',
      'CTL_TOKEN',
      'CTL_USERNAME',
      'CTL_PASSWORD',
      'CTL_OUTPUT',
    ]) {
      assert.ok(r.stdout.includes(v), `${v} is documented`);
    }
  });
});

describe('the config directory', () => {
  it('is 0700, its files 0600, and no file holds the password', async () => {
    const cli = await loggedIn();
    const walk = async (dir: string): Promise<string[]> => {
      const out: string[] = [dir];
      for (const e of await readdir(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) out.push(...(await walk(p)));
        else out.push(p);
      }
      return out;
    };
    const entries = await walk(cli.configDir);
    assert.ok(entries.length > 1, 'login wrote something');
    for (const p of entries) {
      const st = await stat(p);
      const mode = st.mode & 0o777;
      if (st.isDirectory()) assert.equal(mode, 0o700, `${p} is a directory with mode ${mode.toString(8)}`);
      else {
        assert.equal(mode, 0o600, `${p} has mode ${mode.toString(8)}`);
        assert.ok(!(await readFile(p, 'utf8')).includes(ctl.adminPassword), `${p} must not hold the password`);
      }
    }
    assertStatus(await ctl.api.get('/version'), 200);
  });
});
