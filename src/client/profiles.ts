// Named profiles (controller URL, trusted CA, username) and their session tokens, kept in the user's config
// directory. Settings and tokens live in two files so that sharing or inspecting config.json never leaks a token.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type Conf from 'conf';
import { FailureError, NotFoundError, UsageError } from '../console/errors.js';
import { withDirLock } from './dir-lock.js';

export interface Profile {
  name: string;
  /** Controller base URL, e.g. https://ctrl.example:1280: the one that answered last, where commands start. */
  controller: string;
  /**
   * Every controller of the network, in the order given at login, when there are several (they share a database and
   * a PKI); a profile of one controller has none.
   */
  controllers?: string[];
  /** PEM bundle trusted for this controller; absent when the system trust store verifies it. */
  caPem?: string;
  /** SHA-256 fingerprint of the bundle's root (the one shown when it was trusted). */
  caFingerprint?: string;
  username?: string;
  /** Logged in with a certificate: the identity file (`ctl login --identity`), or the certificate and key files. */
  identityFile?: string;
  certFile?: string;
  keyFile?: string;
  /**
   * Logged in with an external JWT (`ctl login --ext-jwt`): the token's file, or `-` for stdin; log in again with one.
   */
  extJwtFile?: string;
}

export interface StoredSession {
  token: string;
  /** ISO 8601, as the controller reported it at login; activity on the controller may extend it. */
  expiresAt?: string;
}

export interface ProfileStore {
  readonly dir: string;
  list(): Profile[];
  get(name: string): Profile | undefined;
  /** Like get, but an unknown name is a NotFoundError (exit 5) listing the known ones. */
  getExisting(name: string): Profile;
  save(profile: Profile): Promise<void>;
  /** Removes the profile and its token; clears `current` when it pointed there. False when there was none. */
  remove(name: string): Promise<boolean>;
  /** The profile `ctl profile use` selected, if any. */
  current(): string | undefined;
  use(name: string): Promise<void>;
  session(name: string): StoredSession | undefined;
  setToken(name: string, session: StoredSession): Promise<void>;
  /** Records the controller that answered, so that the next command starts there (one of the profile's). */
  setController(name: string, controller: string): Promise<void>;
  clearToken(name: string): Promise<void>;
}

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** `$CTL_CONFIG_DIR`, else `$XDG_CONFIG_HOME/ctl`, else the platform's per-user config directory. */
export function configDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  if (env.CTL_CONFIG_DIR) return path.resolve(env.CTL_CONFIG_DIR);
  if (env.XDG_CONFIG_HOME) return path.join(env.XDG_CONFIG_HOME, 'ctl');
  if (platform === 'win32' && env.APPDATA) return path.join(env.APPDATA, 'ctl');
  return path.join(homedir(), '.config', 'ctl');
}

export function validateProfileName(name: string): string {
  if (!NAME.test(name)) {
    throw new UsageError(`invalid profile name '${name}'`, [
      'use letters, digits, ".", "_" and "-" (up to 64 characters, starting with a letter or digit)',
    ]);
  }
  return name;
}

/** Tightens `p` to `mode` if group or others may access it: tokens must never be readable by other users. */
function restrict(p: string, mode: number): void {
  if (existsSync(p) && (statSync(p).mode & 0o077) !== 0) chmodSync(p, mode);
}

interface Settings extends Record<string, unknown> {
  current?: string;
  profiles?: Record<string, Omit<Profile, 'name'>>;
}

interface Credentials extends Record<string, unknown> {
  sessions?: Record<string, StoredSession>;
}

/**
 * Opens the store. Reads parse the JSON files directly on each access (so another ctl process's changes are seen),
 * which keeps read-only commands from loading conf and its schema validator; writes go through conf, loaded on the
 * first write, for its atomic writes and file modes. Every write is a read-modify-write under one lock on the
 * directory, so that concurrent ctl processes (ten logins in parallel) never lose each other's changes.
 */
export async function openProfileStore(opts: { env: NodeJS.ProcessEnv; dir?: string }): Promise<ProfileStore> {
  const dir = opts.dir ?? configDir(opts.env);
  // Created here rather than by conf, which would use the default (group/world-readable) mode.
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  restrict(dir, DIR_MODE);
  const file = (configName: string) => path.join(dir, `${configName}.json`);
  for (const name of ['config', 'credentials']) restrict(file(name), FILE_MODE);

  const readFile = <T>(configName: string): Partial<T> => {
    let text: string;
    try {
      text = readFileSync(file(configName), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw unreadable(file(configName), err);
    }
    try {
      const data = JSON.parse(text) as unknown;
      if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new Error('not a JSON object');
      return data as Partial<T>;
    } catch (err) {
      throw unreadable(file(configName), err);
    }
  };

  let writers: Promise<{ settings: Conf<Settings>; credentials: Conf<Credentials> }> | undefined;
  const writable = () =>
    (writers ??= import('conf').then(({ default: ConfClass }) => {
      const open = <T extends Record<string, unknown>>(configName: string): Conf<T> => {
        try {
          return new ConfClass<T>({
            projectName: 'ctl',
            cwd: dir,
            configName,
            configFileMode: FILE_MODE,
            // Profile names may contain dots; keys are whole names, never paths.
            accessPropertiesByDotNotation: false,
          });
        } catch (err) {
          throw unreadable(file(configName), err);
        }
      };
      return { settings: open<Settings>('config'), credentials: open<Credentials>('credentials') };
    }));

  const locked = <T>(change: () => Promise<T>): Promise<T> => withDirLock(path.join(dir, 'config.lock'), change);

  const profiles = () => ({ ...readFile<Settings>('config').profiles });
  const sessions = () => ({ ...readFile<Credentials>('credentials').sessions });
  const get = (name: string): Profile | undefined => {
    const p = profiles();
    return Object.hasOwn(p, name) ? { ...p[name], name } : undefined;
  };
  const getExisting = (name: string): Profile => {
    const found = get(name);
    if (!found) throw unknownProfile(name, Object.keys(profiles()));
    return found;
  };
  /** Unlocked: callers hold the lock. */
  const dropToken = async (name: string) => {
    const { [name]: _gone, ...kept } = sessions();
    (await writable()).credentials.set('sessions', kept);
  };

  return {
    dir,
    list: () =>
      Object.entries(profiles())
        .map(([name, p]) => ({ ...p, name }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    get,
    getExisting,
    async save(profile) {
      const { name, ...rest } = profile;
      validateProfileName(name);
      await locked(async () => (await writable()).settings.set('profiles', { ...profiles(), [name]: rest }));
    },
    remove: (name) =>
      locked(async () => {
        if (!get(name)) return false;
        const { settings } = await writable();
        const { [name]: _gone, ...kept } = profiles();
        settings.set('profiles', kept);
        if (readFile<Settings>('config').current === name) settings.delete('current');
        await dropToken(name);
        return true;
      }),
    current: () => readFile<Settings>('config').current,
    use: (name) =>
      locked(async () => {
        const existing = getExisting(name).name;
        (await writable()).settings.set('current', existing);
      }),
    session(name) {
      const s = sessions();
      return Object.hasOwn(s, name) ? s[name] : undefined;
    },
    setToken: (name, session) =>
      locked(async () => {
        getExisting(name);
        (await writable()).credentials.set('sessions', { ...sessions(), [name]: session });
      }),
    clearToken: (name) => locked(() => dropToken(name)),
    setController: (name, controller) =>
      locked(async () => {
        const { name: _name, ...rest } = getExisting(name);
        (await writable()).settings.set('profiles', { ...profiles(), [name]: { ...rest, controller } });
      }),
  };
}

/** The profile's controllers, the one that answered last first, then the others in the order given at login. */
export function profileControllers(profile: Pick<Profile, 'controller' | 'controllers'>): string[] {
  return [...new Set([profile.controller, ...(profile.controllers ?? [])])];
}

export function unknownProfile(name: string, known: string[]): NotFoundError {
  return new NotFoundError(`profile '${name}' does not exist`, [
    known.length > 0
      ? `known profiles: ${known.sort().join(', ')}`
      : 'no profiles yet: create one with `ctl login URL -u USER`',
  ]);
}

function unreadable(file: string, err: unknown): FailureError {
  return new FailureError(`cannot read the ctl configuration in ${file}: ${(err as Error).message}`, [
    'fix the file by hand, or move it away and log in again',
  ]);
}
