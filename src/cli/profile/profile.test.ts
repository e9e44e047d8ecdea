import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { openProfileStore } from '../../client/profiles.js';
import type { ProfileStore } from '../../client/profiles.js';
import { parseArgv } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';
import { startStubController } from '../../client/testing/stub-controller.js';
import type { StubController } from '../../client/testing/stub-controller.js';
import { runLogin } from '../session/login.js';
import { tlsFixture } from '../../client/testing/tls-fixture.js';
import { DeclinedError, NotFoundError } from '../../console/errors.js';
import { buildProfile } from './index.js';
import { runProfileList } from './list.js';
import { buildProfileRemove, runProfileRemove } from './remove.js';
import type { ProfileRemoveOptions } from './remove.js';
import { runProfileShow } from './show.js';
import { runProfileUse } from './use.js';

let configDir: string;
let store: ProfileStore;
beforeEach(async () => {
  configDir = mkdtempSync(path.join(tmpdir(), 'ctl-profile-'));
  store = await openProfileStore({ env: {}, dir: configDir });
  const caPem = tlsFixture().caBundlePem;
  await store.save({ name: 'lab', controller: 'https://lab:1280', username: 'admin', caPem, caFingerprint: 'AA:BB' });
  await store.save({ name: 'prod', controller: 'https://prod:1280', username: 'ops' });
  await store.setToken('lab', { token: 'SECRET-TOKEN', expiresAt: '2030-01-01T00:00:00.000Z' });
  await store.use('lab');
});
afterEach(() => rmSync(configDir, { recursive: true, force: true }));

describe('ctl profile flags', () => {
  it('has list/ls, use, show, remove/rm', async () => {
    const group = buildProfile(testDeps({ configDir }));
    assert.deepEqual(
      group.commands.map((c) => [c.name(), ...c.aliases()]),
      [['list', 'ls'], ['use'], ['show'], ['remove', 'rm']],
    );
  });

  it('remove takes a name and --yes', async () => {
    let seen: ProfileRemoveOptions | undefined;
    await parseArgv(
      buildProfileRemove(testDeps({ configDir }), async (o) => void (seen = o)),
      ['remove', 'lab', '-y'],
    );
    assert.deepEqual(seen, { name: 'lab', yes: true });
    await assert.rejects(parseArgv(buildProfileRemove(testDeps({ configDir })), ['remove']), {
      code: 'commander.missingArgument',
    });
  });
});

describe('ctl profile list', () => {
  it('prints a table with the active profile starred', async () => {
    const deps = testDeps({ configDir });
    const { io } = deps;
    await runProfileList({}, deps);
    assert.equal(
      io.stdoutText(),
      [
        'CURRENT  NAME  CONTROLLER         USERNAME  SESSION',
        '*        lab   https://lab:1280   admin     logged in',
        '         prod  https://prod:1280  ops       none',
        '',
      ].join('\n'),
    );
  });

  it('prints data for programs, and names with -q; the --profile flag decides the active one', async () => {
    const deps = testDeps({ configDir, globals: { output: 'json', profile: 'prod' } });
    const { io } = deps;
    await runProfileList({}, deps);
    const rows = JSON.parse(io.stdoutText()) as Array<{ name: string; current: boolean; loggedIn: boolean }>;
    assert.deepEqual(
      rows.map((r) => [r.name, r.current, r.loggedIn]),
      [
        ['lab', false, true],
        ['prod', true, false],
      ],
    );
    assert.doesNotMatch(io.stdoutText(), /SECRET-TOKEN/);
    const quiet = testDeps({ configDir });
    await runProfileList({ quiet: true }, quiet);
    assert.equal(quiet.io.stdoutText(), 'lab\nprod\n');
  });
});

describe('a profile of several controllers', () => {
  it('list and show give every controller, the one in use first; a profile of one lists just it', async () => {
    const remembered = 'https://b.example:1280';
    await store.save({ name: 'ha', controller: remembered, controllers: ['https://a.example:1280', remembered] });
    const list = testDeps({ configDir, globals: { output: 'json' } });
    await runProfileList({}, list);
    const rows = JSON.parse(list.io.stdoutText()) as Array<{ name: string; controller: string; controllers: string[] }>;
    assert.deepEqual(
      rows.map((r) => [r.name, r.controller, r.controllers]),
      [
        ['ha', remembered, [remembered, 'https://a.example:1280']],
        ['lab', 'https://lab:1280', ['https://lab:1280']],
        ['prod', 'https://prod:1280', ['https://prod:1280']],
      ],
    );
    const show = testDeps({ configDir, globals: { output: 'json', profile: 'ha' } });
    await runProfileShow({}, show);
    const shown = JSON.parse(show.io.stdoutText()) as { controller: string; controllers: string[] };
    assert.deepEqual([shown.controller, shown.controllers], [remembered, [remembered, 'https://a.example:1280']]);
  });
});

describe('ctl profile use', () => {
  it('switches, and refuses unknown names with exit 5', async () => {
    const deps = testDeps({ configDir, env: { CTL_PROFILE: 'lab' } });
    const { io } = deps;
    await runProfileUse({ name: 'prod' }, deps);
    assert.equal(store.current(), 'prod');
    assert.match(io.stderrText(), /^Now using profile prod \(https:\/\/prod:1280\)\nwarning: CTL_PROFILE=lab is set/);
    await assert.rejects(runProfileUse({ name: 'nope' }, deps), (err: unknown) => {
      assert.ok(err instanceof NotFoundError);
      assert.equal(err.exitCode, 5);
      assert.deepEqual(err.details, ['known profiles: lab, prod']);
      return true;
    });
  });
});

describe('ctl profile show', () => {
  it('shows the CA and whether a session is stored, never the token', async () => {
    const deps = testDeps({ configDir, globals: { output: 'json' } });
    const { io } = deps;
    await runProfileShow({}, deps);
    const shown = JSON.parse(io.stdoutText()) as Record<string, unknown>;
    assert.equal(shown.name, 'lab');
    assert.equal(shown.current, true);
    // https://lab:1280 cannot be reached: the expiry saved at login is shown as the last one seen.
    const session = shown.session as Record<string, unknown>;
    assert.equal(session.lastSeenExpiresAt, '2030-01-01T00:00:00.000Z');
    assert.equal(session.expiresAt, undefined, 'not presented as current');
    assert.match(String(session.note), /^not checked: /);
    const certs = shown.caCertificates as Array<{ subject: string; sha256: string }>;
    assert.equal(certs[0].sha256, new X509Certificate(tlsFixture().rootPem).fingerprint256);
    assert.doesNotMatch(io.stdoutText(), /SECRET-TOKEN/);

    const table = testDeps({ configDir });
    await runProfileShow({ name: 'prod' }, table);
    assert.match(table.io.stdoutText(), /trust: +system CA store/);
    assert.match(table.io.stdoutText(), /stored: false/);
    await assert.rejects(runProfileShow({ name: 'nope' }, table), NotFoundError);
  });
});

describe('ctl profile show, online', () => {
  let stub: StubController;
  before(async () => (stub = await startStubController()));
  after(() => stub.close());

  it("shows the session's expiry as the controller has it now, and saves it", async () => {
    const env = { CTL_USERNAME: 'admin', CTL_PASSWORD: 'admin-pw' };
    await runLogin({ url: stub.url, yes: true }, testDeps({ configDir, env, globals: { profile: 'live' } }));
    const stale = '2029-01-01T00:00:00.000Z';
    const token = store.session('live')!.token;
    await store.setToken('live', { token, expiresAt: stale });
    const deps = testDeps({ configDir, globals: { output: 'json' } });
    const { io } = deps;
    await runProfileShow({ name: 'live' }, deps);
    const shown = JSON.parse(io.stdoutText()) as { session: Record<string, unknown> };
    assert.deepEqual(shown.session, { stored: true, active: true, expiresAt: '2030-01-01T00:00:00.000Z' });
    const reopened = await openProfileStore({ env: {}, dir: configDir });
    assert.equal(reopened.session('live')?.expiresAt, '2030-01-01T00:00:00.000Z', 'saved for the next look');

    await reopened.setToken('live', { token: 'revoked-token', expiresAt: stale });
    const revoked = testDeps({ configDir, globals: { output: 'json' } });
    await runProfileShow({ name: 'live' }, revoked);
    const dead = (JSON.parse(revoked.io.stdoutText()) as { session: Record<string, unknown> }).session;
    assert.equal(dead.active, false);
    assert.match(String(dead.note), /expired or revoked/);
  });
});

describe('ctl profile remove', () => {
  it('asks on a terminal and removes the profile with its token', async () => {
    const deps = testDeps({ configDir, tty: true, answers: { confirm: [false, true] } });
    const { io, prompts } = deps;
    await assert.rejects(runProfileRemove({ name: 'lab' }, deps), DeclinedError);
    assert.ok(store.get('lab'));
    await runProfileRemove({ name: 'lab' }, deps);
    assert.deepEqual(prompts, ['Remove profile lab (https://lab:1280)?', 'Remove profile lab (https://lab:1280)?']);
    assert.equal(store.get('lab'), undefined);
    assert.equal(store.session('lab'), undefined);
    assert.equal(store.current(), undefined);
    assert.equal(io.stderrText(), 'Removed profile lab\n');
  });

  it('without a terminal needs --yes', async () => {
    const deps = testDeps({ configDir });
    await assert.rejects(
      runProfileRemove({ name: 'prod' }, deps),
      (err: unknown) =>
        err instanceof DeclinedError &&
        err.exitCode === 3 &&
        err.message === 'removing profile prod needs confirmation' &&
        err.details.join() === 'pass --yes (-y)',
    );
    assert.ok(store.get('prod'));
    await runProfileRemove({ name: 'prod', yes: true }, deps);
    assert.equal(store.get('prod'), undefined);
    await assert.rejects(runProfileRemove({ name: 'prod', yes: true }, deps), NotFoundError);
  });
});
