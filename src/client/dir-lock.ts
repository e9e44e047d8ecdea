// An exclusive lock between ctl processes, for read-modify-write of the files in one directory. mkdir is atomic on
// every local file system, so whoever creates the lock directory holds the lock. Holders keep it for milliseconds
// (a read and a write of small files), so a lock older than STALE_MS was left by a killed process and is broken.
import { mkdir, rmdir, stat } from 'node:fs/promises';
import { FailureError } from '../console/errors.js';

const STALE_MS = 10_000;
const WAIT_MS = 30_000;

export async function withDirLock<T>(lockDir: string, work: () => Promise<T>): Promise<T> {
  await acquire(lockDir);
  try {
    return await work();
  } finally {
    await rmdir(lockDir).catch(() => undefined);
  }
}

async function acquire(lockDir: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
    try {
      await mkdir(lockDir, { mode: 0o700 });
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw lockFailure(lockDir, (err as Error).message);
    }
    // Waiters that find the same stale lock race to remove it; the age is read again just before, so that one
    // of them removing a lock another has just taken needs both to run within microseconds of a crash's leftover.
    if ((await ageOf(lockDir)) > STALE_MS) {
      if ((await ageOf(lockDir)) > STALE_MS) await rmdir(lockDir).catch(() => undefined);
    } else if (Date.now() > deadline) throw lockFailure(lockDir, `still held after ${WAIT_MS / 1000}s`);
    else await new Promise((r) => setTimeout(r, delay + Math.random() * delay));
  }
}

const ageOf = (p: string): Promise<number> =>
  stat(p).then(
    (s) => Date.now() - s.mtimeMs,
    () => 0,
  );

function lockFailure(lockDir: string, reason: string): FailureError {
  return new FailureError(`cannot lock the ctl configuration (${lockDir}): ${reason}`, [
    'another ctl may be writing it; if none is running, remove that directory',
  ]);
}
