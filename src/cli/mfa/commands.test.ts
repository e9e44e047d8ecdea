// The mfa verbs against a scripted controller: what they send, in which order, and what they refuse before
// sending anything. Includes OpenZiti's behaviour where it differs from this repository's controller (recovery
// codes shown again by the view; a regeneration that answers empty). The real flows run in test/e2e/mfa-cli.test.ts.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ApiError } from '../../protocol/errors.js';
import type { ApiClient, RequestOptions } from '../../client/types.js';
import { RejectedError, UsageError } from '../../console/errors.js';
import { testDeps } from '../testing/test-deps.js';
import type { Answers } from '../../client/testing/fake-prompter.js';
import { runMfaDisable, runMfaEnable, runMfaRecoveryCodes, runMfaRegenerate, runMfaStatus } from './commands.js';

type Handler = (body: unknown, opts: RequestOptions | undefined) => unknown;

/** A controller that answers from a table keyed `METHOD path`, and records every call. */
function scripted(routes: Record<string, Handler | Handler[]>) {
  const calls: { key: string; body?: unknown; headers?: Record<string, string> }[] = [];
  const answer = (key: string, body: unknown, opts: RequestOptions | undefined) => {
    calls.push({ key, body, headers: opts?.headers });
    const route = routes[key];
    const handler = Array.isArray(route) ? route.shift() : route;
    if (!handler) throw new Error(`unexpected call ${key}`);
    return Promise.resolve().then(() => handler(body, opts));
  };
  const api = {
    baseUrl: 'https://ctrl.test',
    get: (path: string, opts?: RequestOptions) => answer(`GET ${path}`, undefined, opts),
    post: (path: string, body: unknown, opts?: RequestOptions) => answer(`POST ${path}`, body, opts),
    delete: (path: string, opts?: RequestOptions) => answer(`DELETE ${path}`, undefined, opts),
  } as unknown as ApiClient;
  return { api, calls };
}

function depsFor(api: ApiClient, opts: { tty?: boolean; answers?: Answers; output?: string; profile?: string } = {}) {
  const globals = { output: opts.output, profile: opts.profile };
  const t = testDeps({ configDir: '/nonexistent', tty: opts.tty, answers: opts.answers, globals });
  t.deps.api = async () => api;
  return t;
}

const notFound = () => {
  throw new ApiError('MFA_ENROLLMENT_NOT_STARTED');
};
const wrongCode = () => {
  throw new ApiError('MFA_INVALID_TOKEN');
};
const CODES = Array.from({ length: 20 }, (_, i) => `CODE${String.fromCharCode(65 + i)}A`);
const unverified = { id: 'm1', isVerified: false, provisioningUrl: 'otpauth://totp/ctrl:alice?secret=JBSWY3DPEHPK3PXP&issuer=ctrl', recoveryCodes: CODES };

describe('ctl mfa', () => {
  it('enable refuses flags that cannot work before any request', async () => {
    const { api, calls } = scripted({});
    await assert.rejects(runMfaEnable({ force: true }, depsFor(api, { tty: true }).deps), UsageError);
    await assert.rejects(runMfaEnable({}, depsFor(api, { tty: false }).deps), /needs a terminal/);
    assert.deepEqual(calls, []);
  });

  it('enable --code with no enrollment started refuses without starting one', async () => {
    const { api, calls } = scripted({ 'GET /current-identity/mfa': notFound });
    await assert.rejects(runMfaEnable({ code: '123456' }, depsFor(api).deps), /none is started/);
    assert.deepEqual(calls.map((c) => c.key), ['GET /current-identity/mfa']);
  });

  it('enable --secret-out, on a profile a bare command would not pick, says how to finish on it', async () => {
    const { api } = scripted({
      'GET /current-identity/mfa': [notFound, () => unverified],
      'POST /current-identity/mfa': () => ({ id: 'm1' }),
    });
    const dir = await mkdtemp(path.join(os.tmpdir(), 'ctl-mfa-'));
    try {
      const { deps, io } = depsFor(api, { profile: 'qs2' });
      await runMfaEnable({ secretOut: path.join(dir, 'totp.secret') }, deps);
      assert.match(io.stderrText(), /Complete the enrollment with: ctl mfa verify CODE --profile qs2\n/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('enable refuses when MFA is already enabled', async () => {
    const { api } = scripted({ 'GET /current-identity/mfa': () => ({ id: 'm1', isVerified: true }) });
    await assert.rejects(runMfaEnable({}, depsFor(api, { tty: true }).deps), RejectedError);
  });

  it('enable in a terminal: starts, shows QR code and URL, re-asks on wrong codes, prints recovery codes', async () => {
    const { api, calls } = scripted({
      'GET /current-identity/mfa': [notFound, () => unverified],
      'POST /current-identity/mfa': () => ({ id: 'm1' }),
      'POST /current-identity/mfa/verify': [wrongCode, () => ({})],
    });
    const { deps, io, prompter } = depsFor(api, { tty: true, answers: { input: ['111111', ' 222222 '] } });
    await runMfaEnable({}, deps);
    assert.deepEqual(calls.map((c) => c.key), ['GET /current-identity/mfa', 'POST /current-identity/mfa', 'GET /current-identity/mfa', 'POST /current-identity/mfa/verify', 'POST /current-identity/mfa/verify']);
    assert.deepEqual(calls.slice(-2).map((c) => c.body), [{ code: '111111' }, { code: '222222' }]);
    assert.equal(prompter.asked.length, 2);
    assert.match(io.stderrText(), /otpauth:\/\/totp\/ctrl:alice\?secret=JBSWY3DPEHPK3PXP/);
    assert.match(io.stderrText(), /[▄▀█]/);
    assert.match(io.stderrText(), /RECOVERY CODES/);
    for (const c of CODES) assert.ok(io.stdoutText().includes(c));
  });

  it('enable in a terminal too narrow for the QR code says how wide it must be, and still prints the URL', async () => {
    const { api } = scripted({
      'GET /current-identity/mfa': () => unverified,
      'POST /current-identity/mfa/verify': () => ({}),
    });
    const { deps, io } = depsFor(api, { tty: true, answers: { input: ['123456'] } });
    io.width = 30;
    await runMfaEnable({}, deps);
    const stderr = io.stderrText();
    assert.match(stderr, /warning: the QR code needs a terminal at least 41 columns wide \(this one has 30\): widen/);
    assert.doesNotMatch(stderr, /[▄▀█]/);
    assert.match(stderr, /otpauth:\/\/totp\/ctrl:alice\?secret=JBSWY3DPEHPK3PXP/);
  });

  it('enable continues an unverified enrollment with --code, and gives up after one wrong --code', async () => {
    const ok = scripted({ 'GET /current-identity/mfa': () => unverified, 'POST /current-identity/mfa/verify': () => ({}) });
    const { deps, io } = depsFor(ok.api, { output: 'json' });
    await runMfaEnable({ code: '123456' }, deps);
    assert.deepEqual(JSON.parse(io.stdoutText()), { recoveryCodes: CODES });
    const bad = scripted({ 'GET /current-identity/mfa': () => unverified, 'POST /current-identity/mfa/verify': [wrongCode] });
    await assert.rejects(runMfaEnable({ code: '000000' }, depsFor(bad.api).deps), ApiError);
  });

  it('-o yaml keeps every recovery code a string, one that reads as a number (2E5427) too', async () => {
    const codes = ['2E5427', 'ABCDEF'];
    const controller = scripted({ 'GET /current-identity/mfa': () => ({ ...unverified, recoveryCodes: codes }) });
    const { deps, io } = depsFor(controller.api, { output: 'yaml' });
    await runMfaRecoveryCodes({}, deps);
    const { parse } = await import('yaml');
    assert.deepEqual(parse(io.stdoutText()), { recoveryCodes: codes });
  });

  it('status says disabled, pending or enabled, and exits 0 in each case', async () => {
    for (const [answer, expected] of [[notFound, 'disabled'], [() => unverified, 'pending'], [() => ({ id: 'm', isVerified: true }), 'enabled']] as const) {
      const { api } = scripted({ 'GET /current-identity/mfa': answer });
      const { deps, io } = depsFor(api, { output: 'json' });
      await runMfaStatus(deps);
      assert.equal(JSON.parse(io.stdoutText()).state, expected);
    }
  });

  it('disable sends the code in mfa-validation-code; an unverified enrollment goes with an empty one', async () => {
    const done = scripted({ 'GET /current-identity/mfa': () => ({ id: 'm', isVerified: true }), 'DELETE /current-identity/mfa': () => ({}) });
    await runMfaDisable({ code: '123456' }, depsFor(done.api).deps);
    assert.deepEqual(done.calls[1].headers, { 'mfa-validation-code': '123456' });
    const pending = scripted({ 'GET /current-identity/mfa': () => unverified, 'DELETE /current-identity/mfa': () => ({}) });
    await runMfaDisable({}, depsFor(pending.api).deps);
    assert.deepEqual(pending.calls[1].headers, { 'mfa-validation-code': '' });
    const noTty = scripted({ 'GET /current-identity/mfa': () => ({ id: 'm', isVerified: true }) });
    await assert.rejects(runMfaDisable({}, depsFor(noTty.api).deps), /--code/);
  });

  it('regenerate prints the codes in the answer, or (OpenZiti) reads them from the view with that code', async () => {
    const ours = scripted({ 'GET /current-identity/mfa': () => ({ id: 'm', isVerified: true }), 'POST /current-identity/mfa/recovery-codes': () => ({ recoveryCodes: CODES }) });
    const a = depsFor(ours.api, { output: 'json' });
    await runMfaRegenerate({ code: '123456' }, a.deps);
    assert.deepEqual(JSON.parse(a.io.stdoutText()).recoveryCodes, CODES);
    const openziti = scripted({
      'GET /current-identity/mfa': () => ({ id: 'm', isVerified: true }),
      'POST /current-identity/mfa/recovery-codes': () => ({}),
      'GET /current-identity/mfa/recovery-codes': () => ({ recoveryCodes: CODES }),
    });
    const b = depsFor(openziti.api, { output: 'json' });
    await runMfaRegenerate({ code: '654321' }, b.deps);
    assert.deepEqual(openziti.calls[2].headers, { 'mfa-validation-code': '654321' });
    assert.deepEqual(JSON.parse(b.io.stdoutText()).recoveryCodes, CODES);
  });

  it('recovery-codes shows the codes the controller answers with, for the code given', async () => {
    const controller = scripted({ 'GET /current-identity/mfa': () => ({ id: 'm', isVerified: true }), 'GET /current-identity/mfa/recovery-codes': () => ({ recoveryCodes: CODES }) });
    const a = depsFor(controller.api, { output: 'json' });
    await runMfaRecoveryCodes({ code: '123456' }, a.deps);
    assert.deepEqual(JSON.parse(a.io.stdoutText()).recoveryCodes, CODES);
    assert.equal(controller.calls.at(-1)?.headers?.['mfa-validation-code'], '123456');
  });

});
