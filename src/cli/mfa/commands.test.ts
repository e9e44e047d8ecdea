// The mfa verbs against a scripted controller: what they send, in which order, and what they refuse before
// sending anything. Includes OpenZiti's behaviour where it differs from this repository's controller (recovery
// codes shown again by the view; a regeneration that answers empty). The real flows run in test/e2e/mfa-cli.test.ts.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ApiError } from '../../protocol/errors.js';
import type { ApiClient } from '../../client/types.js';
import { RejectedError, UsageError } from '../../console/errors.js';
import { fakeApi, inTurn } from '../testing/fake-api.js';
import { testDeps } from '../testing/test-deps.js';
import type { Answers } from '../../client/testing/fake-prompter.js';
import { runMfaDisable, runMfaEnable, runMfaRecoveryCodes, runMfaRegenerate, runMfaStatus } from './commands.js';

function depsFor(api: ApiClient, opts: { tty?: boolean; answers?: Answers; output?: string; profile?: string } = {}) {
  const globals = { output: opts.output, profile: opts.profile };
  return testDeps({ api, tty: opts.tty, answers: opts.answers, globals });
}

const notFound = () => {
  throw new ApiError('MFA_ENROLLMENT_NOT_STARTED');
};
const wrongCode = () => {
  throw new ApiError('MFA_INVALID_TOKEN');
};
const CODES = Array.from({ length: 20 }, (_, i) => `CODE${String.fromCharCode(65 + i)}A`);
const unverified = {
  id: 'm1',
  isVerified: false,
  provisioningUrl: 'otpauth://totp/ctrl:alice?secret=JBSWY3DPEHPK3PXP&issuer=ctrl',
  recoveryCodes: CODES,
};

describe('ctl mfa', () => {
  it('enable refuses flags that cannot work before any request', async () => {
    const api = fakeApi({});
    await assert.rejects(runMfaEnable({ force: true }, depsFor(api, { tty: true })), UsageError);
    await assert.rejects(runMfaEnable({}, depsFor(api, { tty: false })), /needs a terminal/);
    assert.deepEqual(api.calls, []);
  });

  it('enable --code with no enrollment started refuses without starting one', async () => {
    const api = fakeApi({ 'GET /current-identity/mfa': notFound });
    await assert.rejects(runMfaEnable({ code: '123456' }, depsFor(api)), /none is started/);
    assert.deepEqual(
      api.calls.map((c) => `${c.method} ${c.path}`),
      ['GET /current-identity/mfa'],
    );
  });

  it('enable --secret-out, on a profile a bare command would not pick, says how to finish on it', async () => {
    const api = fakeApi({
      'GET /current-identity/mfa': inTurn(notFound, () => unverified),
      'POST /current-identity/mfa': () => ({ id: 'm1' }),
    });
    const dir = await mkdtemp(path.join(os.tmpdir(), 'ctl-mfa-'));
    try {
      const deps = depsFor(api, { profile: 'qs2' });
      const { io } = deps;
      await runMfaEnable({ secretOut: path.join(dir, 'totp.secret') }, deps);
      assert.match(io.stderrText(), /Complete the enrollment with: ctl mfa verify CODE --profile qs2\n/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('enable refuses when MFA is already enabled', async () => {
    const api = fakeApi({ 'GET /current-identity/mfa': () => ({ id: 'm1', isVerified: true }) });
    await assert.rejects(runMfaEnable({}, depsFor(api, { tty: true })), RejectedError);
  });

  it('enable in a terminal: starts, shows QR code and URL, re-asks on wrong codes, prints recovery codes', async () => {
    const api = fakeApi({
      'GET /current-identity/mfa': inTurn(notFound, () => unverified),
      'POST /current-identity/mfa': () => ({ id: 'm1' }),
      'POST /current-identity/mfa/verify': inTurn(wrongCode, () => ({})),
    });
    const deps = depsFor(api, { tty: true, answers: { input: ['111111', ' 222222 '] } });
    const { io, prompts } = deps;
    await runMfaEnable({}, deps);
    assert.deepEqual(
      api.calls.map((c) => `${c.method} ${c.path}`),
      [
        'GET /current-identity/mfa',
        'POST /current-identity/mfa',
        'GET /current-identity/mfa',
        'POST /current-identity/mfa/verify',
        'POST /current-identity/mfa/verify',
      ],
    );
    assert.deepEqual(
      api.calls.slice(-2).map((c) => c.body),
      [{ code: '111111' }, { code: '222222' }],
    );
    assert.equal(prompts.length, 2);
    assert.match(io.stderrText(), /otpauth:\/\/totp\/ctrl:alice\?secret=JBSWY3DPEHPK3PXP/);
    assert.match(io.stderrText(), /[▄▀█]/);
    assert.match(io.stderrText(), /RECOVERY CODES/);
    for (const c of CODES) assert.ok(io.stdoutText().includes(c));
  });

  it('enable in a terminal too narrow for the QR code says how wide it must be, and still prints the URL', async () => {
    const api = fakeApi({
      'GET /current-identity/mfa': () => unverified,
      'POST /current-identity/mfa/verify': () => ({}),
    });
    const deps = depsFor(api, { tty: true, answers: { input: ['123456'] } });
    const { io } = deps;
    io.width = 30;
    await runMfaEnable({}, deps);
    const stderr = io.stderrText();
    assert.match(stderr, /warning: the QR code needs a terminal at least 41 columns wide \(this one has 30\): widen/);
    assert.doesNotMatch(stderr, /[▄▀█]/);
    assert.match(stderr, /otpauth:\/\/totp\/ctrl:alice\?secret=JBSWY3DPEHPK3PXP/);
  });

  it('enable continues an unverified enrollment with --code, and gives up after one wrong --code', async () => {
    const ok = fakeApi({
      'GET /current-identity/mfa': () => unverified,
      'POST /current-identity/mfa/verify': () => ({}),
    });
    const deps = depsFor(ok, { output: 'json' });
    const { io } = deps;
    await runMfaEnable({ code: '123456' }, deps);
    assert.deepEqual(JSON.parse(io.stdoutText()), { recoveryCodes: CODES });
    const bad = fakeApi({
      'GET /current-identity/mfa': () => unverified,
      'POST /current-identity/mfa/verify': inTurn(wrongCode),
    });
    await assert.rejects(runMfaEnable({ code: '000000' }, depsFor(bad)), ApiError);
  });

  it('-o yaml keeps every recovery code a string, one that reads as a number (2E5427) too', async () => {
    const codes = ['2E5427', 'ABCDEF'];
    const controller = fakeApi({ 'GET /current-identity/mfa': () => ({ ...unverified, recoveryCodes: codes }) });
    const deps = depsFor(controller, { output: 'yaml' });
    const { io } = deps;
    await runMfaRecoveryCodes({}, deps);
    const { parse } = await import('yaml');
    assert.deepEqual(parse(io.stdoutText()), { recoveryCodes: codes });
  });

  it('status says disabled, pending or enabled, and exits 0 in each case', async () => {
    for (const [answer, expected] of [
      [notFound, 'disabled'],
      [() => unverified, 'pending'],
      [() => ({ id: 'm', isVerified: true }), 'enabled'],
    ] as const) {
      const api = fakeApi({ 'GET /current-identity/mfa': answer });
      const deps = depsFor(api, { output: 'json' });
      const { io } = deps;
      await runMfaStatus(deps);
      assert.equal(JSON.parse(io.stdoutText()).state, expected);
    }
  });

  it('disable sends the code in mfa-validation-code; an unverified enrollment goes with an empty one', async () => {
    const done = fakeApi({
      'GET /current-identity/mfa': () => ({ id: 'm', isVerified: true }),
      'DELETE /current-identity/mfa': () => ({}),
    });
    await runMfaDisable({ code: '123456' }, depsFor(done));
    assert.deepEqual(done.calls[1].headers, { 'mfa-validation-code': '123456' });
    const pending = fakeApi({
      'GET /current-identity/mfa': () => unverified,
      'DELETE /current-identity/mfa': () => ({}),
    });
    await runMfaDisable({}, depsFor(pending));
    assert.deepEqual(pending.calls[1].headers, { 'mfa-validation-code': '' });
    const noTty = fakeApi({ 'GET /current-identity/mfa': () => ({ id: 'm', isVerified: true }) });
    await assert.rejects(runMfaDisable({}, depsFor(noTty)), /--code/);
  });

  it('regenerate prints the codes in the answer, or (OpenZiti) reads them from the view with that code', async () => {
    const ours = fakeApi({
      'GET /current-identity/mfa': () => ({ id: 'm', isVerified: true }),
      'POST /current-identity/mfa/recovery-codes': () => ({ recoveryCodes: CODES }),
    });
    const a = depsFor(ours, { output: 'json' });
    await runMfaRegenerate({ code: '123456' }, a);
    assert.deepEqual(JSON.parse(a.io.stdoutText()).recoveryCodes, CODES);
    const openziti = fakeApi({
      'GET /current-identity/mfa': () => ({ id: 'm', isVerified: true }),
      'POST /current-identity/mfa/recovery-codes': () => ({}),
      'GET /current-identity/mfa/recovery-codes': () => ({ recoveryCodes: CODES }),
    });
    const b = depsFor(openziti, { output: 'json' });
    await runMfaRegenerate({ code: '654321' }, b);
    assert.deepEqual(openziti.calls[2].headers, { 'mfa-validation-code': '654321' });
    assert.deepEqual(JSON.parse(b.io.stdoutText()).recoveryCodes, CODES);
  });

  it('recovery-codes shows the codes the controller answers with, for the code given', async () => {
    const controller = fakeApi({
      'GET /current-identity/mfa': () => ({ id: 'm', isVerified: true }),
      'GET /current-identity/mfa/recovery-codes': () => ({ recoveryCodes: CODES }),
    });
    const a = depsFor(controller, { output: 'json' });
    await runMfaRecoveryCodes({ code: '123456' }, a);
    assert.deepEqual(JSON.parse(a.io.stdoutText()).recoveryCodes, CODES);
    assert.equal(controller.calls.at(-1)?.headers?.['mfa-validation-code'], '123456');
  });
});
