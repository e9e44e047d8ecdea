import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { FailureError, NotFoundError, UsageError } from '../console/errors.js';
import { configDir, openProfileStore, profileControllers } from './profiles.js';

const temps: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'ctl-profiles-'));
  temps.push(d);
  return d;
}
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

const mode = (p: string) => statSync(p).mode & 0o777;

describe('configDir', () => {
  it('prefers CTL_CONFIG_DIR, then XDG_CONFIG_HOME, then ~/.config', () => {
    assert.equal(configDir({ CTL_CONFIG_DIR: '/a/b', XDG_CONFIG_HOME: '/x' }, 'linux'), '/a/b');
    assert.equal(configDir({ XDG_CONFIG_HOME: '/x' }, 'linux'), '/x/ctl');
    assert.equal(configDir({}, 'linux'), path.join(homedir(), '.config', 'ctl'));
    assert.equal(
      configDir({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32'),
      path.join('C:\\Users\\u\\AppData\\Roaming', 'ctl'),
    );
  });
});

describe('openProfileStore', () => {
  it('creates the directory 0700 and both files 0600, tokens apart from settings', async () => {
    const dir = path.join(tempDir(), 'cfg');
    const store = await openProfileStore({ env: { CTL_CONFIG_DIR: dir } });
    assert.equal(store.dir, dir);
    assert.equal(mode(dir), 0o700);
    await store.save({
      name: 'prod',
      controller: 'https://c:1280',
      username: 'admin',
      caPem: 'PEM',
      caFingerprint: 'AA',
    });
    await store.setToken('prod', { token: 'tok-1', expiresAt: '2030-01-01T00:00:00.000Z' });
    const config = path.join(dir, 'config.json');
    const credentials = path.join(dir, 'credentials.json');
    assert.equal(mode(config), 0o600);
    assert.equal(mode(credentials), 0o600);
    assert.doesNotMatch(readFileSync(config, 'utf8'), /tok-1/);
    assert.match(readFileSync(credentials, 'utf8'), /tok-1/);
  });

  it('tightens a directory and files that are too open', async () => {
    const dir = tempDir();
    chmodSync(dir, 0o755);
    writeFileSync(path.join(dir, 'credentials.json'), '{}', { mode: 0o644 });
    chmodSync(path.join(dir, 'credentials.json'), 0o644);
    await openProfileStore({ env: {}, dir });
    assert.equal(mode(dir), 0o700);
    assert.equal(mode(path.join(dir, 'credentials.json')), 0o600);
  });

  it('saves, lists, selects and removes profiles with their tokens', async () => {
    const dir = tempDir();
    const store = await openProfileStore({ env: {}, dir });
    await store.save({ name: 'b.lab', controller: 'https://b:1280' });
    await store.save({ name: 'a', controller: 'https://a:1280', username: 'u' });
    assert.deepEqual(
      store.list().map((p) => p.name),
      ['a', 'b.lab'],
    );
    assert.deepEqual(store.get('b.lab'), { name: 'b.lab', controller: 'https://b:1280' });
    assert.equal(store.current(), undefined);
    await store.use('b.lab');
    await store.setToken('b.lab', { token: 't' });

    // A second process sees the same state.
    const again = await openProfileStore({ env: {}, dir });
    assert.equal(again.current(), 'b.lab');
    assert.deepEqual(again.session('b.lab'), { token: 't' });

    await again.clearToken('b.lab');
    assert.equal(store.session('b.lab'), undefined);
    await store.setToken('b.lab', { token: 't2' });
    assert.equal(await store.remove('b.lab'), true);
    assert.equal(store.current(), undefined);
    assert.equal(store.session('b.lab'), undefined);
    assert.equal(await store.remove('b.lab'), false);
    assert.equal(store.get('toString'), undefined);
  });

  it('refuses unknown and invalid names', async () => {
    const store = await openProfileStore({ env: {}, dir: tempDir() });
    await assert.rejects(store.use('nope'), NotFoundError);
    await assert.rejects(store.setToken('nope', { token: 'x' }), NotFoundError);
    await assert.rejects(store.save({ name: '../x', controller: 'https://c' }), UsageError);
    await assert.rejects(store.save({ name: '__proto__', controller: 'https://c' }), UsageError);
  });

  it('records the controller that answered, changing nothing else; a profile of one URL reads as before', async () => {
    const dir = tempDir();
    const store = await openProfileStore({ env: {}, dir });
    const controllers = ['https://a:1280', 'https://b:1280'];
    await store.save({ name: 'ha', controller: 'https://a:1280', controllers, username: 'admin', caPem: 'PEM' });
    await store.setController('ha', 'https://b:1280');
    const answered = { name: 'ha', controller: 'https://b:1280', controllers, username: 'admin', caPem: 'PEM' };
    assert.deepEqual(store.get('ha'), answered);
    assert.deepEqual(profileControllers(store.getExisting('ha')), ['https://b:1280', 'https://a:1280']);
    assert.equal(mode(path.join(dir, 'config.json')), 0o600);
    await assert.rejects(store.setController('nope', 'https://b:1280'), NotFoundError);
    // A profile file written before lists: one `controller`, no `controllers`.
    const before = { profiles: { old: { controller: 'https://c:1280' } } };
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify(before));
    assert.deepEqual(profileControllers(store.getExisting('old')), ['https://c:1280']);
  });

  it('names the file when it is not valid JSON', async () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'config.json'), '{ not json', { mode: 0o600 });
    await assert.rejects(
      async () => (await openProfileStore({ env: {}, dir })).list(),
      (err: unknown) => err instanceof FailureError && err.message.includes(path.join(dir, 'config.json')),
    );
  });
});
