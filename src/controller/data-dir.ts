import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { StoreUnavailableError } from './store/driver.js';
import { refuseDamagedDatabase } from './store/sqlite-file.js';

/** The lock file inside the data directory: present while a controller owns the directory. */
export const LOCK_FILE = 'controller.lock';
/** A lock file still empty after this long was left by a start that crashed between create and write. */
const EMPTY_LOCK_GRACE_MS = 5_000;
/** A lock-breaking marker older than this was left by a start that crashed while breaking a stale lock. */
const BREAK_GRACE_MS = 10_000;

/**
 * Refused because another live controller holds the data directory, or the SQLite file given by path; the message
 * names it.
 */
export class DataDirLockedError extends Error {
  constructor(what: string, detail: string) {
    super(`${what} is in use: ${detail}`);
    this.name = 'DataDirLockedError';
  }
}

/**
 * Refused because an entry the controller writes is a symbolic link (chmod and writes would follow it): one of the
 * data directory's, or by default `whose` says which.
 */
export class DataDirSymlinkError extends Error {
  constructor(
    readonly path: string,
    whose = "the data directory's entries",
  ) {
    super(`refusing to use ${path}: it is a symbolic link; ${whose} must be plain files and directories`);
    this.name = 'DataDirSymlinkError';
  }
}

interface LockOwner {
  pid: number;
  /** The owner's start time as the kernel knows it (Linux), so a reused pid is not mistaken for the owner. */
  started?: string;
  nonce: string;
}

export interface DataDirLock {
  /** Removes the lock file if it is still ours. Idempotent. */
  release(): void;
}

/**
 * Takes the data directory for this process, before anything else is written in it: an exclusive create of
 * `controller.lock` holding our pid. A second controller, started at the same moment or later, is refused while
 * we live. A lock left by a dead process (kill -9, power loss) is stale and is broken by the next start, under a
 * second exclusive marker so that two starts never both break it.
 */
function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  refuseSymlinks(dataDir, [LOCK_FILE, `${LOCK_FILE}.break`]);
  return takeLock(join(dataDir, LOCK_FILE), {
    what: `the data directory ${dataDir}`,
    otherwise: 'choose another data directory',
  });
}

/**
 * Takes a SQLite file given by path (`--store FILE`) for this process, as the data directory is taken, with
 * `FILE.lock` beside it: two controllers with data directories of their own would otherwise both serve one file,
 * each keeping in memory (sessions, what policies require) what only the other's writes change.
 */
function lockSqliteFile(file: string): DataDirLock {
  const lock = `${file}.lock`;
  try {
    refuseSymlinks(dirname(file), [basename(lock), `${basename(lock)}.break`], "a database's lock files");
    return takeLock(lock, { what: `the database ${file}`, otherwise: 'give this one another --store' });
  } catch (err) {
    if (err instanceof DataDirLockedError || err instanceof DataDirSymlinkError) throw err;
    // A directory that is missing or not ours to write: what opening the database there would have said.
    throw new StoreUnavailableError(`cannot open the database ${file}: ${(err as Error).message}`);
  }
}

/** What a lock is refused with: what it guards, and what else to do than stop the holder. */
interface LockWords {
  what: string;
  otherwise: string;
}

function takeLock(file: string, words: LockWords): DataDirLock {
  const me: LockOwner = { pid: process.pid, started: processStart(process.pid), nonce: randomBytes(8).toString('hex') };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (tryCreate(file, me)) return lockHandle(file, me);
    const current = readOwner(file);
    if (current === 'missing') continue;
    if (current === 'empty') {
      if (Date.now() - mtimeOf(file) < EMPTY_LOCK_GRACE_MS)
        throw new DataDirLockedError(words.what, 'another controller is starting on it');
    } else if (isAlive(current)) {
      throw new DataDirLockedError(
        words.what,
        `a controller (pid ${current.pid}) holds ${file}; stop it or ${words.otherwise}`,
      );
    }
    breakStale(words, file, current);
  }
  throw new DataDirLockedError(words.what, 'could not take its lock (another start is competing for it)');
}

/** Refuses entries of the data directory (and of a PKI directory, or `whose`) that are symbolic links. */
function refuseSymlinks(dir: string, entries?: string[], whose?: string): void {
  const names = entries ?? safeList(dir);
  for (const name of names) {
    const path = join(dir, name);
    try {
      if (lstatSync(path).isSymbolicLink()) throw new DataDirSymlinkError(path, whose);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function tryCreate(file: string, me: LockOwner): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, JSON.stringify(me));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readOwner(file: string): LockOwner | 'missing' | 'empty' {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw err;
  }
  try {
    const owner = JSON.parse(text) as LockOwner;
    if (Number.isSafeInteger(owner.pid) && owner.pid > 0) return owner;
  } catch {
    // An empty or half-written file: its writer crashed (or is writing right now, see the grace period).
  }
  return 'empty';
}

function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/** Alive when the pid exists and, where the kernel tells us, started when the owner did (pids are reused). */
function isAlive(owner: LockOwner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const started = processStart(owner.pid);
  return owner.started === undefined || started === undefined || started === owner.started;
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot); undefined where there is no /proc. */
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: count fields after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Removes a stale lock, under an exclusive marker, and only if it is still the stale one we looked at. */
function breakStale(words: LockWords, file: string, seen: LockOwner | 'empty'): void {
  const marker = `${file}.break`;
  let fd: number;
  try {
    fd = openSync(marker, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    if (Date.now() - mtimeOf(marker) > BREAK_GRACE_MS) {
      unlinkSync(marker);
      return;
    }
    throw new DataDirLockedError(words.what, 'another controller is starting on it');
  }
  try {
    const now = readOwner(file);
    const same = now === 'empty' ? seen === 'empty' : now !== 'missing' && seen !== 'empty' && now.nonce === seen.nonce;
    if (same) unlinkSync(file);
  } finally {
    closeSync(fd);
    unlinkSync(marker);
  }
}

function lockHandle(file: string, me: LockOwner): DataDirLock {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    const current = readOwner(file);
    if (current !== 'missing' && current !== 'empty' && current.nonce === me.nonce) {
      try {
        unlinkSync(file);
      } catch {
        // Already gone: nothing to release.
      }
    }
  };
  // A normal exit (also after an uncaught error) releases the lock; kill -9 leaves it
  // stale, which the next start breaks.
  process.on('exit', release);
  return { release };
}

/**
 * Entries the controller writes in its data directory; none may be a symbolic link. The database's lock files are
 * checked as the database is locked (lockSqliteFile), wherever the database is.
 */
const DATA_DIR_ENTRIES = [
  LOCK_FILE,
  'ctl.db',
  'ctl.db-wal',
  'ctl.db-shm',
  'ca-bundle.pem',
  'controller.json',
  'controller.json.tmp',
  'controller-id',
  'pki',
];

export interface PreparedDataDir {
  lock: DataDirLock;
  /** Where the CA keys and server certificate live: `--pki-dir`, or `<dataDir>/pki`. */
  pkiDir: string;
}

/**
 * Takes the data directory (lock first, before anything is written) and, when the store is SQLite, its file (lock
 * beside it, wherever it is: a second controller given the file by `--store`, from a data directory of its own, is
 * refused too); makes the directory owner-only and refuses symbolic links among the entries the controller writes,
 * in it and in the PKI directory, and a SQLite file that exists but is damaged.
 */
export function prepareDataDir(dataDir: string, pkiDir?: string, sqliteFile?: string): PreparedDataDir {
  const locks: DataDirLock[] = [];
  const lock = {
    release: () => {
      for (const taken of locks.splice(0).reverse()) taken.release();
    },
  };
  try {
    locks.push(lockDataDir(dataDir));
    if (sqliteFile !== undefined) locks.push(lockSqliteFile(sqliteFile));
    chmodSync(dataDir, 0o700);
    refuseSymlinks(dataDir, DATA_DIR_ENTRIES);
    // A damaged database is refused before anything (the PKI) is created beside it.
    if (sqliteFile !== undefined) refuseDamagedDatabase(sqliteFile);
    const pki = pkiDir ?? join(dataDir, 'pki');
    mkdirSync(pki, { recursive: true, mode: 0o700 });
    refuseSymlinks(pki);
    return { lock, pkiDir: pki };
  } catch (err) {
    lock.release();
    throw err;
  }
}
