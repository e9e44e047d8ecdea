// `ctl mfa` and `ctl login` with MFA against a real controller over HTTPS: enable in a real pseudo-terminal
// (util-linux `script`), the QR code drawn and a typed code; login with --totp, --totp-stdin (a recovery code), and
// a prompt in a terminal; the scripted flow with --secret-out; an admin's reset. Codes come from the tests' own
// TOTP (test/helpers/totp.ts).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CTL_BIN, type LoggedInCli, ctlEnv, parseJsonOutput, withLoggedInCli } from '../helpers/cli.js';
import {
  type TestController,
  assertStatus,
  createIdentity,
  createUser,
  randomPassword,
  startTestController,
} from '../helpers/controller.js';
import { code, secretOf } from '../helpers/totp.js';

const hasScript = spawnSync('script', ['--version']).status === 0;
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const plain = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');

/**
 * Runs ctl under a pseudo-terminal; `answer` sees the output so far and returns what to type next (or undefined to
 * wait for more). Killed, and reported, if it outlives `limitMs`.
 */
function inTerminal(
  args: string[],
  env: NodeJS.ProcessEnv,
  answer: (output: string) => Promise<string | undefined>,
  limitMs = 30_000,
): Promise<{ code: number | null; output: string; killed: boolean }> {
  const line = [process.execPath, CTL_BIN, ...args].map(quote).join(' ');
  return new Promise((resolve) => {
    const child = spawn('script', ['-qfec', line, '/dev/null'], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    let busy = false;
    let killed = false;
    const onData = async (d: Buffer) => {
      output += d.toString('utf8');
      if (busy) return;
      busy = true;
      try {
        const typed = await answer(plain(output));
        if (typed !== undefined) child.stdin.write(typed);
      } finally {
        busy = false;
      }
    };
    child.stdout.on('data', (d: Buffer) => void onData(d));
    child.stderr.on('data', (d: Buffer) => void onData(d));
    const guard = setTimeout(() => {
      killed = true;
      process.kill(-child.pid!, 'SIGKILL');
    }, limitMs);
    child.on('close', (exit) => {
      clearTimeout(guard);
      resolve({ code: exit, output: plain(output), killed });
    });
  });
}

describe('ctl mfa and ctl login with MFA', () => {
  let ctl: TestController;
  let admin: LoggedInCli;
  let alice: { id: string; name: string; username: string; password: string };
  let cli: LoggedInCli;
  let secret = '';
  let recoveryCodes: string[] = [];

  before(async () => {
    ctl = await startTestController();
    alice = await createUser(await ctl.admin());
    admin = await withLoggedInCli(ctl);
    cli = await withLoggedInCli(ctl, { username: alice.username, password: alice.password });
  });
  after(async () => {
    await cli?.cleanup();
    await admin?.cleanup();
    await ctl?.close();
  });

  /** A terminal like an interactive user's: no CI, colour allowed. */
  const terminalEnv = (extra: Record<string, string> = {}) =>
    ctlEnv({ configDir: cli.configDir, env: { CI: undefined, NO_COLOR: undefined, TERM: 'xterm-256color', ...extra } });

  it('ctl mfa enable refuses without a terminal, naming --secret-out', async () => {
    const r = await cli.expect(2, ['mfa', 'enable']);
    assert.match(r.stderr, /--secret-out/);
    assert.match((await cli.expect(0, ['mfa', 'status'])).stdout, /not enabled/);
  });

  it('ctl mfa enable in a terminal: draws the QR code and the URL, takes a typed code, shows the recovery codes', {
    skip: !hasScript && 'util-linux script is not installed',
  }, async () => {
    let typed = 0;
    const r = await inTerminal(['mfa', 'enable'], terminalEnv(), async (out) => {
      if (!/Code shown by the app:/.test(out)) return undefined;
      const url = /(otpauth:\/\/\S+)/.exec(out);
      if (!url || typed > 0) return undefined;
      typed++;
      secret = secretOf(url[1]);
      return `${await code(secret)}\r`;
    });
    assert.equal(r.killed, false, r.output.slice(-2000));
    assert.equal(r.code, 0, r.output.slice(-2000));
    assert.match(r.output, /Scan this QR code/);
    assert.match(r.output, /[▄▀█]{5}/, 'a QR code in block characters');
    assert.match(r.output, /RECOVERY CODES/);
    recoveryCodes = r.output.match(/\b[A-Z2-7]{6}\b/g)!.filter((c) => /[A-Z]/.test(c) && c !== 'RECOVE');
    assert.ok(recoveryCodes.length >= 20, r.output);
    recoveryCodes = recoveryCodes.slice(-20);
    assert.match((await cli.expect(0, ['mfa', 'status'])).stdout, /MFA: enabled/, 'the session that verified goes on');
    assert.equal(JSON.parse((await cli.expect(0, ['mfa', 'status', '-o', 'json'])).stdout).enabled, true);
  });

  it('ctl login without a code and without a terminal fails with exit 2, naming --totp', async () => {
    const r = await cli.expect(2, ['login', ctl.url, '-u', alice.username, '--password-stdin', '--ca', ctl.caFile], {
      stdin: `${alice.password}\n`,
    });
    assert.match(r.stderr, /requires an MFA code/);
    assert.match(r.stderr, /--totp/);
  });

  it('ctl login --totp CODE completes MFA; a wrong code is exit 4', async () => {
    assert.ok(secret, 'enabled in the previous test');
    const wrong = await cli.expect(
      4,
      ['login', ctl.url, '-u', alice.username, '--ca', ctl.caFile, '--totp', '000000'],
      { env: { CTL_PASSWORD: alice.password } },
    );
    assert.match(wrong.stderr, /not accepted/);
    await cli.expect(0, ['login', ctl.url, '-u', alice.username, '--ca', ctl.caFile, '--totp', await code(secret, 1)], {
      env: { CTL_PASSWORD: alice.password },
    });
    assert.match((await cli.expect(0, ['whoami'])).stdout, new RegExp(alice.name));
  });

  it('ctl login --totp-stdin takes a recovery code, once', async () => {
    const args = ['login', ctl.url, '-u', alice.username, '--ca', ctl.caFile, '--totp-stdin'];
    await cli.expect(0, args, { env: { CTL_PASSWORD: alice.password }, stdin: `${recoveryCodes[0]}\n` });
    await cli.expect(4, args, { env: { CTL_PASSWORD: alice.password }, stdin: `${recoveryCodes[0]}\n` });
    await cli.expect(2, [...args, '--password-stdin'], { stdin: 'x\n' });
  });

  it('ctl login asks for the code in a terminal', {
    skip: !hasScript && 'util-linux script is not installed',
  }, async () => {
    let typed = false;
    const r = await inTerminal(
      ['login', ctl.url, '-u', alice.username, '--ca', ctl.caFile],
      terminalEnv({ CTL_PASSWORD: alice.password }),
      async (out) => {
        if (typed || !/MFA code/.test(out)) return undefined;
        typed = true;
        return `${await code(secret, 2)}\r`;
      },
    );
    assert.equal(r.code, 0, r.output.slice(-2000));
    assert.match(r.output, /Logged in/);
  });

  it('an admin resets the MFA of an identity: ctl identity mfa-reset', async () => {
    await admin.expect(3, ['identity', 'mfa-reset', alice.name], {});
    await admin.expect(0, ['identity', 'mfa-reset', alice.name, '--yes']);
    const again = await admin.expect(5, ['identity', 'mfa-reset', alice.name, '--yes']);
    assert.match(again.stderr, /no MFA/);
    await cli.expect(0, ['login', ctl.url, '-u', alice.username, '--password-stdin', '--ca', ctl.caFile], {
      stdin: `${alice.password}\n`,
    });
  });

  it('scripted: --secret-out FILE (0600), ctl mfa verify, regenerate, recovery-codes, disable', async () => {
    const bob = await createUser(await ctl.admin());
    const bobCli = await withLoggedInCli(ctl, { username: bob.username, password: bob.password });
    try {
      const file = path.join(path.dirname(bobCli.configDir), 'totp.secret');
      await bobCli.expect(0, ['mfa', 'enable', '--secret-out', file]);
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      const bobSecret = (await readFile(file, 'utf8')).trim();
      assert.match(bobSecret, /^[A-Z2-7]{32}$/);
      assert.match((await bobCli.expect(0, ['mfa', 'status'])).stdout, /not verified/);
      await bobCli
        .expect(2, ['mfa', 'enable', '--secret-out', file], {})
        .then((r) => assert.match(r.stderr, /already exists/));

      const verified = parseJsonOutput(await bobCli.expect(0, ['mfa', 'verify', await code(bobSecret), '-o', 'json']));
      assert.equal(verified.recoveryCodes.length, 20);
      const regenerated = parseJsonOutput(
        await bobCli.expect(0, ['mfa', 'regenerate', '--code', await code(bobSecret, 1), '-o', 'json']),
      );
      assert.equal(regenerated.recoveryCodes.length, 20);
      assert.notDeepEqual(regenerated.recoveryCodes, verified.recoveryCodes);
      await bobCli.expect(6, ['mfa', 'recovery-codes', '--code', '123456']);
      const view = parseJsonOutput(
        await bobCli.expect(0, ['mfa', 'recovery-codes', '--code', await code(bobSecret, 2), '-o', 'json']),
      );
      assert.deepEqual(view.recoveryCodes, regenerated.recoveryCodes);
      await bobCli.expect(6, ['mfa', 'disable', '--code', '000000']);
      await bobCli.expect(0, ['mfa', 'disable', '--code', regenerated.recoveryCodes[0]]);
      assert.match((await bobCli.expect(0, ['mfa', 'status'])).stdout, /not enabled/);
    } finally {
      await bobCli.cleanup();
    }
  });

  it('an auth policy requiring TOTP: login keeps an enroll-only session, and ctl mfa enable completes it', async () => {
    const made = await admin.expect(0, [
      'auth-policy',
      'create',
      'totp-required',
      '--primary',
      'password,cert',
      '--require-totp',
    ]);
    const policyId = made.stdout.trim();
    const http = await ctl.admin();
    const name = `carol-${Date.now()}`;
    const id = await createIdentity(http, { name, isAdmin: false, authPolicyId: policyId });
    const password = randomPassword();
    assertStatus(
      await http.post(
        '/authenticators',
        { method: 'updb', identityId: id, username: name, password },
        { api: 'management' },
      ),
      201,
    );

    const carol = await withLoggedInCli(ctl, { username: name, password });
    try {
      await carol.expect(4, ['whoami']);
      const login = await carol.expect(0, ['login', ctl.url, '-u', name, '--password-stdin', '--ca', ctl.caFile], {
        stdin: `${password}\n`,
      });
      assert.match(login.stderr, /requires MFA .*ctl mfa enable/);
      // The partial session is not mistaken for a missing admin right: whoami says MFA is pending, and what to run.
      const pending = await carol.expect(4, ['whoami']);
      assert.match(pending.stderr, /MFA is pending/);
      assert.match(pending.stderr, /`ctl mfa enable`/);
      assert.doesNotMatch(pending.stderr, /admin identity/);
      // Logged in on a profile that is not the current one, the hints name it: a bare command would act on another.
      const login2 = ['login', ctl.url, '-u', name, '--password-stdin', '--ca', ctl.caFile, '--profile', 'carol-2'];
      const other = await carol.expect(0, login2, { stdin: `${password}\n` });
      assert.match(other.stderr, /`ctl mfa enable --profile carol-2`/);
      const pending2 = await carol.expect(4, ['whoami', '--profile', 'carol-2']);
      assert.match(pending2.stderr, /`ctl mfa enable --profile carol-2`/);
      assert.match((await carol.expect(0, ['mfa', 'status'])).stdout, /not enabled/);
      const file = path.join(path.dirname(carol.configDir), 'carol.secret');
      await carol.expect(0, ['mfa', 'enable', '--secret-out', file]);
      await carol.expect(0, ['mfa', 'verify', await code((await readFile(file, 'utf8')).trim())]);
      assert.match((await carol.expect(0, ['whoami'])).stdout, new RegExp(name));
      // From the other profile, the mfa commands' own hints name it as well.
      const already = await carol.expect(6, ['mfa', 'enable', '--secret-out', `${file}-2`, '--profile', 'carol-2']);
      assert.match(already.stderr, /ctl mfa disable --profile carol-2, then ctl mfa enable --profile carol-2/);
    } finally {
      await carol.cleanup();
    }
  });
});
