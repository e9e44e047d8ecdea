import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { withDirLock } from './dir-lock.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ctl-lock-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('withDirLock', () => {
  it('serialises read-modify-write: no increment is lost', async () => {
    const file = path.join(dir, 'counter');
    writeFileSync(file, '0');
    const lock = path.join(dir, 'counter.lock');
    await Promise.all(
      Array.from({ length: 25 }, () =>
        withDirLock(lock, async () => {
          const n = Number(await readFile(file, 'utf8'));
          await new Promise((r) => setTimeout(r, 1));
          await writeFile(file, String(n + 1));
        }),
      ),
    );
    assert.equal(readFileSync(file, 'utf8'), '25');
  });

  it('breaks a lock left behind by a killed process', async () => {
    const lock = path.join(dir, 'stale.lock');
    mkdirSync(lock);
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    assert.equal(await withDirLock(lock, async () => 'got it'), 'got it');
  });

  it('releases the lock when the work fails', async () => {
    const lock = path.join(dir, 'fail.lock');
    await assert.rejects(
      withDirLock(lock, async () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await withDirLock(lock, async () => 'again'), 'again');
  });
});
