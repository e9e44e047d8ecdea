import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { AuthError, NotFoundError, UsageError } from '../console/errors.js';
import { openProfileStore } from './profiles.js';
import { createSessionManager } from './session-manager.js';
import { fakePrompter } from './testing/fake-prompter.js';
import type { Answers } from './testing/fake-prompter.js';
import { startStubController } from './testing/stub-controller.js';
import type { StubController } from './testing/stub-controller.js';
import { createTestIO } from './testing/test-io.js';
import { tlsFixture } from './testing/tls-fixture.js';

const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'ctl-sm-'));
  temps.push(d);
  return d;
}

function manager(
  configDir: string,
  o: { env?: NodeJS.ProcessEnv; profileFlag?: string; tty?: boolean; answers?: Answers } = {},
) {
  const io = createTestIO({ tty: o.tty });
  const prompter = fakePrompter(o.answers);
  const sm = createSessionManager({
    env: o.env ?? {},
    configDir,
    profileFlag: o.profileFlag,
    io,
    prompter: async () => prompter,
  });
  return { sm, io, prompter };
}

describe('profile and value precedence', () => {
  it('--profile, then CTL_PROFILE, then the current profile, then `default`', async () => {
    const dir = tempDir();
    const store = await openProfileStore({ env: {}, dir });
    for (const name of ['default', 'cur', 'envp', 'flagp'])
      await store.save({ name, controller: `https://${name}.example` });
    const pick = async (o: { env?: NodeJS.ProcessEnv; profileFlag?: string }) =>
      (await manager(dir, o).sm.current()).profileName;
    assert.equal(await pick({}), 'default');
    await store.use('cur');
    assert.equal(await pick({}), 'cur');
    assert.equal(await pick({ env: { CTL_PROFILE: 'envp' } }), 'envp');
    assert.equal(await pick({ env: { CTL_PROFILE: 'envp' }, profileFlag: 'flagp' }), 'flagp');
  });

  it('environment values override the profile, but not an explicit --profile', async () => {
    const dir = tempDir();
    const store = await openProfileStore({ env: {}, dir });
    await store.save({ name: 'a', controller: 'https://a.example', username: 'alice', caPem: 'PEM-A' });
    await store.save({ name: 'b', controller: 'https://b.example', caPem: 'PEM-B' });
    await store.setToken('a', { token: 'tok-a', expiresAt: '2030-01-01T00:00:00.000Z' });
    await store.use('a');
    const env = { CTL_CONTROLLER: 'b.example', CTL_USERNAME: 'bob' };

    const viaEnv = await manager(dir, { env }).sm.current();
    assert.equal(viaEnv.profileName, 'a');
    assert.equal(viaEnv.controller, 'https://b.example');
    assert.equal(viaEnv.caPem, 'PEM-B', 'the CA another profile trusts for that controller');
    assert.equal(viaEnv.username, 'bob');
    assert.equal(viaEnv.credentials, undefined, "profile a's token is not sent to another controller");

    const withToken = await manager(dir, { env: { ...env, CTL_TOKEN: 't' } }).sm.current();
    assert.equal(withToken.credentials, 'env-token');
    const withPassword = await manager(dir, { env: { ...env, CTL_PASSWORD: 'p' } }).sm.current();
    assert.equal(withPassword.credentials, 'env-password');

    const flagged = await manager(dir, { env: { ...env, CTL_TOKEN: 't' }, profileFlag: 'a' }).sm.current();
    assert.equal(flagged.controller, 'https://a.example');
    assert.equal(flagged.username, 'alice');
    assert.equal(flagged.credentials, 'profile');
  });

  it('names a missing profile that was asked for, and says how to log in otherwise', async () => {
    const dir = tempDir();
    await assert.rejects(manager(dir, { profileFlag: 'nope' }).sm.client(), NotFoundError);
    await assert.rejects(manager(dir, { env: { CTL_PROFILE: 'nope' } }).sm.client(), NotFoundError);
    await assert.rejects(manager(dir).sm.client(), (err: unknown) => {
      assert.ok(err instanceof AuthError);
      assert.equal(err.message, 'not logged in: run `ctl login <url> -u <user>`');
      return true;
    });
    const store = await openProfileStore({ env: {}, dir });
    await store.save({ name: 'lab', controller: 'https://lab.example:1280', username: 'admin' });
    await assert.rejects(manager(dir, { profileFlag: 'lab' }).sm.client(), {
      message:
        "not logged in to https://lab.example:1280 (profile 'lab'): run " +
        '`ctl login https://lab.example:1280 -u admin --profile lab`',
    });
  });
});

describe('against a controller', () => {
  let stub: StubController;
  let mfa: StubController;
  before(async () => {
    stub = await startStubController();
    mfa = await startStubController({ mfaCode: '123456' });
  });
  after(async () => {
    await stub.close();
    await mfa.close();
  });

  const trustYes = { yes: true };
  const creds = { username: 'admin', password: 'admin-pw' };

  it('logs in, saves profile and token, selects the first profile, then calls with the token', async () => {
    const dir = tempDir();
    const { sm } = manager(dir);
    const result = await sm.login({ url: stub.url, ...creds, profileName: 'default', trust: trustYes });
    assert.equal(result.isCurrent, true);
    assert.equal(result.profile.caPem, tlsFixture().caBundlePem);
    const store = await openProfileStore({ env: {}, dir });
    assert.equal(store.current(), 'default');
    const saved = store.session('default');
    assert.ok(saved && stub.sessions.has(saved.token));
    assert.equal(saved.expiresAt, '2030-01-01T00:00:00.000Z');

    const identity = await (await manager(dir).sm.client()).get<{ name: string }>('/current-identity');
    assert.equal(identity.name, 'Default Admin');

    // A second profile is saved but does not take over.
    const second = await manager(dir).sm.login({ url: stub.url, ...creds, profileName: 'other', trust: {} });
    assert.equal(second.isCurrent, false);
    assert.equal(store.current(), 'default');
  });

  it('rejects wrong credentials with an AuthError and saves nothing', async () => {
    const dir = tempDir();
    await assert.rejects(
      manager(dir).sm.login({
        url: stub.url,
        username: 'admin',
        password: 'nope',
        profileName: 'default',
        trust: trustYes,
      }),
      (err: unknown) =>
        err instanceof AuthError && /login to https:\/\/localhost:\d+ as admin failed/.test(err.message),
    );
    assert.deepEqual((await openProfileStore({ env: {}, dir })).list(), []);
  });

  it('turns a 401 on a stored session into "expired", and tells it apart from "not authorised"', async () => {
    const dir = tempDir();
    await manager(dir).sm.login({ url: stub.url, ...creds, profileName: 'lab', trust: trustYes });
    const api = await manager(dir, { profileFlag: 'lab' }).sm.client();
    await assert.rejects(api.get('/admin-only'), (err: unknown) => {
      assert.ok(err instanceof AuthError);
      assert.match(
        err.message,
        /^not authorised: https:\/\/localhost:\d+ refused GET \/admin-only for identity 'Default Admin'/,
      );
      return true;
    });
    stub.sessions.clear();
    await assert.rejects(api.get('/identities'), (err: unknown) => {
      assert.ok(err instanceof AuthError);
      assert.equal(err.exitCode, 4);
      // The first login made lab the current profile: a bare `ctl login` acts on it, so the hint needs no --profile.
      assert.match(
        err.message,
        /^your session for profile 'lab' has expired or was revoked; log in again with `ctl login https:\S+ -u admin`$/,
      );
      return true;
    });
  });

  it('logs in on the fly from CTL_CONTROLLER, CTL_USERNAME and CTL_PASSWORD without saving', async () => {
    const dir = tempDir();
    // The CA comes from a profile that trusts this controller; the token is never stored.
    await manager(dir).sm.login({ url: stub.url, ...creds, profileName: 'trusted', trust: trustYes });
    const store = await openProfileStore({ env: {}, dir });
    await store.clearToken('trusted');
    const env = { CTL_CONTROLLER: stub.url, CTL_USERNAME: 'admin', CTL_PASSWORD: 'admin-pw' };
    const identity = await (await manager(dir, { env }).sm.client()).get<{ name: string }>('/current-identity');
    assert.equal(identity.name, 'Default Admin');
    assert.equal(store.session('trusted'), undefined);
  });

  it('uses CTL_TOKEN as given', async () => {
    const dir = tempDir();
    await manager(dir).sm.login({ url: stub.url, ...creds, profileName: 'default', trust: trustYes });
    const token = (await openProfileStore({ env: {}, dir })).session('default')!.token;
    const store = await openProfileStore({ env: {}, dir });
    await store.clearToken('default');
    const api = await manager(dir, { env: { CTL_TOKEN: token } }).sm.client();
    assert.equal((await api.get<{ name: string }>('/current-identity')).name, 'Default Admin');
    await assert.rejects(
      (await manager(dir, { env: { CTL_TOKEN: 'bogus' } }).sm.client()).get('/identities'),
      /the session token in CTL_TOKEN was rejected/,
    );
  });

  it('completes MFA with --totp, by asking on a terminal, or asks for the flag', async () => {
    const dir = tempDir();
    const base = { url: mfa.url, ...creds, profileName: 'default', trust: trustYes };
    await manager(dir).sm.login({ ...base, totp: '123456' });
    assert.equal(
      (await (await manager(dir).sm.client()).get<{ name: string }>('/current-identity')).name,
      'Default Admin',
    );

    const asking = manager(dir, { tty: true, answers: { input: ['123456'] } });
    await asking.sm.login(base);
    assert.deepEqual(asking.prompter.asked, ['MFA code (authenticator app or recovery code):']);

    const retyping = manager(dir, { tty: true, answers: { input: ['000000', '123456'] } });
    await retyping.sm.login(base);
    assert.equal(retyping.prompter.asked.length, 2, 'a wrong code typed is asked for again');
    assert.match(retyping.io.stderrText(), /warning: That code was not accepted/);

    const before = mfa.sessions.size;
    await assert.rejects(
      manager(dir).sm.login(base),
      (err: unknown) => err instanceof UsageError && /--totp CODE/.test(err.details.join()),
    );
    await assert.rejects(
      manager(dir).sm.login({ ...base, totp: '000000' }),
      /the MFA code was not accepted \(MFA_INVALID_TOKEN\)/,
    );
    const env = { CTL_CONTROLLER: mfa.url, CTL_USERNAME: 'admin', CTL_PASSWORD: 'admin-pw' };
    await assert.rejects(
      manager(dir, { env }).sm.client(),
      (err: unknown) => err instanceof AuthError && /CTL_USERNAME\/CTL_PASSWORD login cannot give/.test(err.message),
    );
    assert.equal(mfa.sessions.size, before, 'half-authenticated sessions are ended');
  });

  it("refuses a login whose MFA codes the controller throttles, with the controller's reason once", async () => {
    const throttling = await startStubController({ mfaCode: '123456', mfaThrottledSeconds: 8 });
    try {
      const login = manager(tempDir()).sm.login({
        url: throttling.url,
        ...creds,
        profileName: 'default',
        trust: trustYes,
        totp: '123456',
      });
      await assert.rejects(login, (err: unknown) => {
        assert.ok(err instanceof AuthError);
        assert.equal(
          err.message,
          'the MFA code was not accepted: too many wrong MFA codes; try again in 8 s (SERVER_TOO_MANY_REQUESTS)',
        );
        assert.deepEqual(err.details, ['wait, then log in again with a current code']);
        return true;
      });
      assert.equal(throttling.sessions.size, 0, 'the half-authenticated session is ended');
    } finally {
      await throttling.close();
    }
  });

  it('logout ends the session on the controller, then forgets it; a dead session is fine', async () => {
    const dir = tempDir();
    const { sm } = manager(dir);
    await sm.login({ url: stub.url, ...creds, profileName: 'default', trust: trustYes });
    const store = await openProfileStore({ env: {}, dir });
    const token = store.session('default')!.token;
    assert.deepEqual(await sm.logout(), { profileName: 'default', controller: stub.url, server: 'ended' });
    assert.equal(stub.sessions.has(token), false);
    assert.equal(store.session('default'), undefined);
    assert.ok(store.get('default'), 'the profile stays for the next login');
    assert.equal((await sm.logout()).server, 'not-logged-in');

    await sm.login({ url: stub.url, ...creds, profileName: 'default', trust: {} });
    stub.sessions.clear();
    assert.equal((await sm.logout({ profileName: 'default' })).server, 'already-ended');
    await assert.rejects(sm.logout({ profileName: 'ghost' }), NotFoundError);
  });

  it('logout forgets the token with a warning when the controller is gone', async () => {
    const dir = tempDir();
    const gone = await startStubController();
    const { sm, io } = manager(dir);
    await sm.login({ url: gone.url, ...creds, profileName: 'default', trust: trustYes });
    await gone.close();
    assert.equal((await sm.logout()).server, 'unreachable');
    assert.match(io.stderrText(), /warning: could not end the session on https:\/\/localhost:\d+: cannot connect/);
    assert.equal((await openProfileStore({ env: {}, dir })).session('default'), undefined);
  });

  it('re-login reuses the profile URL and its CA without asking', async () => {
    const dir = tempDir();
    await manager(dir).sm.login({ url: stub.url, ...creds, profileName: 'default', trust: trustYes });
    const again = manager(dir, { tty: true });
    await again.sm.login({ ...creds, profileName: 'default', trust: {} });
    assert.deepEqual(again.prompter.asked, []);
  });

  it('keeps the TLS session of a login and of a command beside the profiles, under the CA they trust', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'tls-sessions.json');
    const trust = createHash('sha256').update(tlsFixture().caBundlePem).digest('hex');
    const kept = () => (JSON.parse(readFileSync(file, 'utf8')) as Record<string, { trust: string }>)[stub.url]?.trust;
    await manager(dir).sm.login({ url: stub.url, ...creds, profileName: 'default', trust: trustYes });
    assert.equal(kept(), trust);
    rmSync(file);
    await (await manager(dir).sm.client()).get('/current-identity');
    assert.equal(kept(), trust);
  });
});

describe('a profile of several controllers', () => {
  const creds = { username: 'admin', password: 'admin-pw' };
  const stubs: StubController[] = [];
  after(async () => {
    await Promise.all(stubs.map((s) => s.close()));
  });
  /** Two controllers of one network: one database keeps the sessions of both. */
  async function network(o: { secondPresentsOtherChain?: boolean } = {}): Promise<[StubController, StubController]> {
    const a = await startStubController();
    const b = await startStubController({ sessions: a.sessions, presentOtherChain: o.secondPresentsOtherChain });
    stubs.push(a, b);
    return [a, b];
  }

  it('logs in to both with one trust, keeps the list, and fails over to the second, which is remembered', async () => {
    const [a, b] = await network();
    const dir = tempDir();
    const both = { url: `${a.url},${b.url}`, ...creds, profileName: 'default', trust: { yes: true } };
    const login = await manager(dir).sm.login(both);
    assert.equal(login.profile.controller, a.url);
    assert.deepEqual(login.profile.controllers, [a.url, b.url]);
    assert.equal(b.requests.filter((r) => r.url.includes('cacerts')).length, 0, 'the second is trusted without asking');

    await a.close();
    const api = await manager(dir).sm.client();
    assert.equal((await api.get<{ name: string }>('/current-identity')).name, 'Default Admin');
    assert.equal(b.requests.at(-1)?.url, '/edge/management/v1/current-identity');
    const saved = (await openProfileStore({ env: {}, dir })).get('default');
    assert.equal(saved?.controller, b.url, 'the next command starts with the controller that answered');
    assert.deepEqual(saved?.controllers, [a.url, b.url], 'the list keeps the order given at login');
    assert.deepEqual((await manager(dir).sm.current()).controllers, [b.url, a.url]);

    b.sessions.clear();
    await assert.rejects((await manager(dir).sm.client()).get('/current-identity'), {
      message:
        `your session for profile 'default' has expired or was revoked; log in again with ` +
        `\`ctl login ${b.url},${a.url} -u admin\``,
    });
  });

  it('logs in while the first controller is down: trust and the session come from the next', async () => {
    const [down, up] = await network();
    await down.close();
    const dir = tempDir();
    const { sm, io } = manager(dir);
    const both = { url: `${down.url},${up.url}`, ...creds, profileName: 'default', trust: { yes: true } };
    const login = await sm.login(both);
    assert.deepEqual([login.profile.controller, login.profile.controllers], [up.url, [down.url, up.url]]);
    assert.equal(login.profile.caPem, tlsFixture().caBundlePem);
    const next = new RegExp(`cannot connect to .*: connection refused .*; deciding trust with ${up.url}\n`);
    assert.match(io.stderrText(), next);
  });

  it('refuses a controller not chaining to the CA trusted for the first, naming it, and saves nothing', async () => {
    const [a, b] = await network({ secondPresentsOtherChain: true });
    const dir = tempDir();
    await assert.rejects(
      manager(dir).sm.login({ url: `${a.url},${b.url}`, ...creds, profileName: 'default', trust: { yes: true } }),
      { message: `${b.url} does not serve the CA trusted for ${a.url}; nothing was saved` },
    );
    assert.deepEqual((await openProfileStore({ env: {}, dir })).list(), []);
  });

  it('CTL_CONTROLLER may list several; an answer through it is not written to the profile', async () => {
    const [a, b] = await network();
    const dir = tempDir();
    await manager(dir).sm.login({ url: `${a.url},${b.url}`, ...creds, profileName: 'default', trust: { yes: true } });
    await a.close();
    const env = { CTL_CONTROLLER: `${a.url},${b.url}` };
    assert.deepEqual((await manager(dir, { env }).sm.current()).controllers, [a.url, b.url]);
    await (await manager(dir, { env }).sm.client()).get('/current-identity');
    assert.equal((await openProfileStore({ env: {}, dir })).get('default')?.controller, a.url);
  });
});
